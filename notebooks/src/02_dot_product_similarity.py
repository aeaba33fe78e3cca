# Lesson 02's source: make notebooks LESSON=02 builds notebooks/{ko,en}/02_dot_product_similarity.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 02. 내적으로 보는 유사도
#
# **이번 시간의 목표**
# - 내적이 "곱해서 더하기"라는 걸 계산으로 확인해요.
# - 내적이 두 벡터의 **방향**(각도)과 **길이**로 정해진다는 걸 그림으로 봐요: q·k = |q|·|k|·cos θ.
# - 예제 문장 전체의 유사도 점수 행렬 Q·Kᵀ를 만들고 읽을 수 있어요.
#
# **수업 시간**: 약 40분

# %% [markdown] lang="en"
# # 02. The dot product as similarity
#
# **Goals for this lesson**
# - Check by computation that the dot product is "multiply, then add".
# - See in a picture that it depends on the **direction (angle)** and the **length** of the two vectors: q·k = |q|·|k|·cos θ.
# - Build and read the whole sentence's similarity score matrix Q·Kᵀ.
#
# **Class time**: about 40 minutes

# %% slide="skip"
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=2, suppress=True)
ex = qk.running_example()                 # "The cat sat on the mat."
cat, sat = ex.index("cat"), ex.index("sat")

# %% [markdown] lang="ko" slide="slide"
# ## 내적: 곱해서 더하기
#
# 쿼리와 키는 둘 다 차원이 d_k = 4인 벡터예요. 둘의 **내적**은 같은 자리의 숫자끼리 곱해서 모두 더한 값이에요.
#
# $$q \cdot k = q_1 k_1 + q_2 k_2 + q_3 k_3 + q_4 k_4$$
#
# "cat"의 쿼리와 "sat"의 키로 직접 해 보면, 손으로 곱해 더한 값과 numpy의 `@`가 같아요.

# %% [markdown] lang="en"
# ## The dot product: multiply, then add
#
# Queries and keys are both vectors of length d_k = 4. Their **dot product** multiplies the entries in the same position and adds everything up:
#
# $$q \cdot k = q_1 k_1 + q_2 k_2 + q_3 k_3 + q_4 k_4$$
#
# With "cat"'s query and "sat"'s key, the sum of products by hand equals numpy's `@`.

# %%
q, k = ex.q[cat], ex.k[sat]
print(q * k)                                   # ko: 자리별 곱
                                               # en: products, position by position
print(round(float((q * k).sum()), 3), round(float(q @ k), 3))   # ko: 더하면 내적
                                                                # en: their sum is the dot product

# %% [markdown] lang="ko" slide="slide"
# ## 각도와 길이
#
# 같은 값을 기하학적으로 쓰면 이래요.
#
# $$q \cdot k = |q|\,|k|\cos\theta$$
#
# θ는 두 벡터 사이의 각도예요. 그래서 내적은 **방향이 비슷할수록** 크고(cos θ → 1), **직각이면 0**, **반대 방향이면 음수**예요. 그리고 **길이**에 비례해요. 2차원 벡터로 그려 보면 바로 보여요. 쿼리 q는 30° 방향, 길이 1.5로 고정해 둘게요.

# %% [markdown] lang="en"
# ## Angle and length
#
# Geometrically, the same number is
#
# $$q \cdot k = |q|\,|k|\cos\theta$$
#
# where θ is the angle between the vectors. So the dot product is **large when they point the same way** (cos θ → 1), **zero at a right angle** and **negative when they point apart**, and it grows with their **lengths**. 2-D vectors show it at a glance. We fix the query q at 30°, length 1.5.

# %% slide="subslide"
q2 = qk.similarity.vector_from_angle(30, 1.5)     # ko: 2차원 쿼리
                                                  # en: a 2-D query
k2 = qk.similarity.vector_from_angle(75, 1.0)     # ko: 2차원 키
                                                  # en: a 2-D key
ax = qk.plots.plot_vectors_2d(q2, k2)

# %% [markdown] lang="ko" slide="subslide"
# 키의 방향만 바꿔 가며 점수를 재 봐요. 30°(같은 방향)에서 가장 크고, 120°(직각)에서 0, 210°(반대)에서 가장 작아요.

# %% [markdown] lang="en"
# Turn only the key's direction and measure the score: largest at 30° (same direction), 0 at 120° (right angle), most negative at 210° (opposite).

# %%
for angle in (30, 75, 120, 165, 210):
    d = qk.similarity.dot_and_angle(q2, qk.similarity.vector_from_angle(angle, 1.0))
    print(angle, round(d.angle_deg), round(d.dot, 2))

# %% [markdown] lang="ko" slide="subslide"
# 방향은 그대로 두고 키의 길이를 두 배로 늘리면 점수도 정확히 두 배가 돼요. 내적은 "얼마나 같은 쪽을 보는가"와 "얼마나 긴가"를 한꺼번에 재는 셈이에요.

# %% [markdown] lang="en"
# Keep the direction and double the key's length: the score doubles exactly. The dot product measures "how much they point the same way" and "how long they are" in one number.

# %%
short = qk.similarity.dot_and_angle(q2, k2).dot
long = qk.similarity.dot_and_angle(q2, 2 * k2).dot
print(round(short, 3), round(long, 3), round(long / short, 3))

# %% [markdown] lang="ko" slide="slide"
# ## 위젯: 키 벡터를 돌려 보세요
#
# 슬라이더로 키 k의 각도와 길이를 바꿔 보세요. 쿼리 q(파란색)는 30°에 고정되어 있어요. 그림 제목에 |q|·|k|·cos θ가 숫자로 풀려 있어요.
#
# **해 볼 것**
# - 각도를 30°에 맞춰 보세요. 점수가 이 길이에서 가장 커요.
# - 120°와 300°로 가 보세요. 두 벡터가 직각이라 점수가 0이에요.
# - 210°에서 길이를 늘려 보세요. 음수 쪽으로 점점 커져요.
#
# **눈여겨볼 것**: 각도가 같으면 점수는 길이에 정비례해요. 그래서 내적은 "닮음"만 재는 게 아니라 벡터의 크기에도 영향을 받아요. 이 점이 03강의 주제로 이어져요.

# %% [markdown] lang="en"
# ## Widget: turn the key vector
#
# Use the sliders to set the key k's angle and length. The query q (blue) stays at 30°. The title spells out |q|·|k|·cos θ with numbers.
#
# **Try this**
# - Set the angle to 30°: for this length, the score is as large as it gets.
# - Go to 120° and 300°: the vectors are at right angles, and the score is 0.
# - At 210°, make k longer: the score grows more and more negative.
#
# **Notice**: at a fixed angle the score is proportional to the length. So the dot product measures not only "alikeness" but also the size of the vectors, which leads to lesson 03.

# %% slide="subslide"
qk.widgets.dot_product_explorer()

# %% [markdown] lang="ko" slide="slide"
# ## 예제 문장으로 돌아와서
#
# 이제 4차원의 진짜 쿼리와 키로 돌아와요. "cat"의 쿼리와 각 토큰의 키 사이의 각도와 내적을 재 보면, "sat"의 키가 가장 비슷한 방향(가장 작은 각도)이고 내적도 가장 커요. 4차원이라 그림으로는 못 그려도 식은 똑같이 성립해요.

# %% [markdown] lang="en"
# ## Back to the sentence
#
# Now the real 4-dimensional queries and keys. Measuring the angle and the dot product between "cat"'s query and every key: "sat"'s key points most nearly the same way (smallest angle) and has the largest dot product. We cannot draw 4 dimensions, but the formula holds the same.

# %%
for j, token in enumerate(ex.tokens):
    d = qk.similarity.dot_and_angle(ex.q[cat], ex.k[j])
    print(f"{token:>4} {d.angle_deg:6.1f}° {d.dot:6.2f}")

# %% [markdown] lang="ko" slide="slide"
# ## 점수 행렬 Q·Kᵀ
#
# 모든 쿼리와 모든 키의 내적을 한 번에 구하면 **유사도 점수 행렬**이 돼요. Kᵀ는 K를 전치한 것이고, 모양은 (7, 4)·(4, 7) → (7, 7)이에요. i행 j열은 "i번째 토큰의 쿼리 · j번째 토큰의 키"예요. 행이 묻는 쪽(쿼리), 열이 답하는 쪽(키)이에요.

# %% [markdown] lang="en"
# ## The score matrix Q·Kᵀ
#
# All queries against all keys at once give the **similarity score matrix**. Kᵀ is K transposed, so the shapes are (7, 4)·(4, 7) → (7, 7). Entry (i, j) is "token i's query · token j's key": rows ask (queries), columns answer (keys).

# %%
scores = ex.q @ ex.k.T                    # ko: (토큰, 토큰)
                                          # en: (tokens, tokens)
print(scores.shape)
print(round(float(scores[cat, sat]), 3), round(float(ex.q[cat] @ ex.k[sat]), 3))

# %% slide="subslide"
ax = qk.plots.plot_attention_heatmap(scores, ex.tokens, signed=True, highlight_row=cat)

# %% [markdown] lang="ko" slide="subslide"
# 이 행렬은 **대칭이 아니에요**. "cat이 sat에게 묻는 점수"(q_cat·k_sat)와 "sat이 cat에게 묻는 점수"(q_sat·k_cat)는 서로 다른 벡터의 내적이라서 값이 달라요. 쿼리와 키를 따로 만드는 이유가 여기 있어요. "누가 누구를 찾는가"는 방향이 있는 관계예요.

# %% [markdown] lang="en"
# This matrix is **not symmetric**. "cat asking about sat" (q_cat·k_sat) and "sat asking about cat" (q_sat·k_cat) are dot products of different vectors, so they differ. That is why queries and keys are made separately: "who looks for whom" is a relation with a direction.

# %%
print(round(float(scores[cat, sat]), 2), round(float(scores[sat, cat]), 2))
print(np.allclose(scores, scores.T))

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 다른 문장의 점수 행렬
#
# "cat"과 "mat"의 자리를 바꾼 문장, "The mat sat on the cat."의 점수 행렬을 만들어 보세요. 새 문장의 임베딩은 예문의 행을 `order = [0, 5, 2, 3, 4, 1, 6]` 순서로 고른 `ex.x[order]`이고, 선형 변환은 그대로 `ex.w_q`, `ex.w_k`예요. 결과는 `(7, 7)`, 행이 쿼리예요. 아직 √d_k로 나누지는 않아요(그건 다음 시간이에요).
#
# (조금 더) 원래 예문에서 "mat"의 쿼리와 "cat"의 키 사이의 **각도**는 몇 도일까요? `ex.q`, `ex.k`, `np.linalg.norm`, `np.arccos`, `np.degrees`로 계산해 `my_angle`에 넣어 보세요.

# %% [markdown] lang="en"
# ## Try it: another sentence's score matrix
#
# Build the score matrix of **"The mat sat on the cat."**, the sentence with "cat" and "mat" swapped. Its embeddings are the example's rows taken in the order `order = [0, 5, 2, 3, 4, 1, 6]`, `ex.x[order]`, and the projections are still `ex.w_q` and `ex.w_k`. The result is `(7, 7)`, with the queries as rows. Do not divide by √d_k yet (that is next lesson).
#
# (A step further) In the original sentence, what is the **angle between "mat"'s query and "cat"'s key**, in degrees? Compute it from `ex.q`, `ex.k`, `np.linalg.norm`, `np.arccos` and `np.degrees` into `my_angle`.

# %% exercise=true
order = [0, 5, 2, 3, 4, 1, 6]   # "The mat sat on the cat."
my_scores = ...   # ko: 새 문장의 Q·Kᵀ, (7, 7)
                  # en: the new sentence's Q·Kᵀ, (7, 7)
qk.checks.check_reordered_scores(my_scores, ex, order)

# %% solution=true
x2 = ex.x[order]                            # ko: (7, 8): 새 순서의 임베딩
                                            # en: (7, 8): the embeddings in the new order
my_scores = (x2 @ ex.w_q) @ (x2 @ ex.w_k).T   # (7, 4)·(4, 7) → (7, 7)
qk.checks.check_reordered_scores(my_scores, ex, order).as_solution()

# %% exercise=true
my_angle = ...   # ko: "mat"의 쿼리와 "cat"의 키 사이의 각도(도)
                 # en: the angle between "mat"'s query and "cat"'s key, in degrees
qk.checks.check_angle(my_angle, ex, query="mat", key="cat")

# %% solution=true
q_mat, k_cat = ex.q[ex.index("mat")], ex.k[ex.index("cat")]
cos = q_mat @ k_cat / (np.linalg.norm(q_mat) * np.linalg.norm(k_cat))   # cos θ = q·k / (|q||k|)
my_angle = np.degrees(np.arccos(cos))
qk.checks.check_angle(my_angle, ex, query="mat", key="cat").as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 내적은 자리별로 곱해서 더한 값이에요: q·k = Σ q_i k_i.
# - 기하학적으로는 q·k = |q|·|k|·cos θ: 같은 방향이면 크고, 직각이면 0, 반대면 음수예요. 길이에도 정비례해요.
# - 예제 문장에서 "cat"의 쿼리와 방향이 가장 가까운 키는 "sat"이에요.
# - Q·Kᵀ는 `(토큰, 토큰)` 모양의 유사도 점수 행렬이고, 행은 쿼리, 열은 키예요. 대칭이 아니에요.
#
# 내적이 길이에 비례한다는 점이 문제를 일으킬 수 있어요. 벡터가 길어지면(차원이 커지면) 어떻게 되는지, 다음 시간에 재 봐요.
#
# [다음: 03. 스케일링: 왜 √d_k로 나눌까요? →](03_scaling.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - The dot product multiplies position by position and adds: q·k = Σ q_i k_i.
# - Geometrically q·k = |q|·|k|·cos θ: large when pointing the same way, 0 at a right angle, negative when apart, and proportional to the lengths.
# - In the sentence, the key whose direction is closest to "cat"'s query is "sat"'s.
# - Q·Kᵀ is the `(tokens, tokens)` similarity score matrix: rows are queries, columns keys. It is not symmetric.
#
# Because the dot product grows with the vectors, it can cause trouble. Next lesson measures what happens as the vectors get wider.
#
# [Next: 03. Scaling: why divide by √d_k? →](03_scaling.ipynb)
