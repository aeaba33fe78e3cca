# Lesson 05's source: make notebooks LESSON=05 builds notebooks/{ko,en}/05_weighted_sum.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 05. 가중합과 문맥 벡터
#
# **이번 시간의 목표**
# - 어텐션 가중치로 밸류(V)를 섞는 **가중합**을 "cat" 하나에 대해 한 단계씩 따라가요.
# - 모든 토큰을 한 번에 계산하는 행렬 식 softmax(Q·Kᵀ/√d_k)·V를 모양과 함께 적을 수 있어요.
# - 출력의 각 행이 주변 단어를 반영한 **문맥 벡터**라는 걸 실험으로 확인해요.
#
# **수업 시간**: 약 30분

# %% [markdown] lang="en"
# # 05. The weighted sum and contextual vectors
#
# **Goals for this lesson**
# - Follow the **weighted sum** that mixes the values (V) with the attention weights, step by step, for "cat".
# - Write the matrix form for all tokens at once, softmax(Q·Kᵀ/√d_k)·V, with shapes.
# - Check by experiment that each output row is a **contextual vector**: it reflects the surrounding words.
#
# **Class time**: about 30 minutes

# %% slide="skip"
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=3, suppress=True)
ex = qk.running_example()                 # "The cat sat on the mat."
cat = ex.index("cat")
weights = qk.softmax(ex.q @ ex.k.T / np.sqrt(ex.d_k))   # ko: (토큰, 토큰): 01-04강의 결과
                                                        # en: (tokens, tokens): lessons 01-04

# %% [markdown] lang="ko" slide="slide"
# ## "cat"의 가중합, 한 단계씩
#
# 04강까지 해서 "cat"의 어텐션 가중치 7개를 얻었어요. 이제 마지막 단계예요. 토큰마다 **자기 밸류 벡터에 가중치를 곱하고**, 그걸 **모두 더해요**.
#
# $$\text{output}_{\text{cat}} = \sum_j w_{\text{cat},j}\, v_j = 0.11\,v_{\text{The}} + 0.18\,v_{\text{cat}} + 0.47\,v_{\text{sat}} + \dots$$
#
# 아래 첫 출력은 가중치, 그다음 표의 각 행은 "가중치 × 그 토큰의 밸류"예요. 마지막 줄이 이 행들을 더한 결과예요.

# %% [markdown] lang="en"
# ## "cat"'s weighted sum, step by step
#
# Lessons 01-04 gave "cat"'s 7 attention weights. Now the last step: **multiply each token's value vector by its weight**, then **add them all up**.
#
# $$\text{output}_{\text{cat}} = \sum_j w_{\text{cat},j}\, v_j = 0.11\,v_{\text{The}} + 0.18\,v_{\text{cat}} + 0.47\,v_{\text{sat}} + \dots$$
#
# The first line below is the weights; each row of the table after it is "weight × that token's value"; the last line is their sum.

# %%
steps = qk.weighted_sum.weighted_sum_steps(weights[cat], ex.v)
print(weights[cat].round(2))
print(steps.contributions)
print(steps.output)

# %% [markdown] lang="ko" slide="subslide"
# "곱해서 모두 더하기"는 곧 벡터와 행렬의 곱이에요. 가중치 한 줄 `(7,)`에 V `(7, 4)`를 곱하면 `(4,)`가 나오고, 위에서 한 단계씩 더한 값과 같아요.

# %% [markdown] lang="en"
# "Multiply and add everything" is exactly a vector-matrix product: the weight row `(7,)` times V `(7, 4)` gives `(4,)`, the same as the sum above.

# %%
print(weights[cat] @ ex.v, np.allclose(weights[cat] @ ex.v, steps.output))

# %% [markdown] lang="ko" slide="subslide"
# 가중치가 큰 토큰일수록 결과에 많이 들어가요. 각 항의 크기(노름)를 재 보면 "sat"의 항이 가장 커요. 참고한 글의 말대로 "sat"의 밸류가 강조된 거예요(01강에서 말했듯, 그렇게 되도록 예제의 시드를 골랐어요. 학습된 모델에서는 어느 밸류가 강조될지를 학습이 정해요). 가중치가 0.01인 "the"는 거의 기여하지 않아요.

# %% [markdown] lang="en"
# The larger a token's weight, the more of it ends up in the result. Measuring each term's size (norm): "sat"'s term is the largest. As the article puts it, "sat"'s value is emphasised (as lesson 01 said, the example's seed was chosen to make it so; in a trained model, training decides which values stand out); "the", with weight 0.01, contributes almost nothing.

# %%
sizes = np.linalg.norm(steps.contributions, axis=1)
print(sizes.round(2), ex.tokens[int(sizes.argmax())])

# %% [markdown] lang="ko" slide="slide"
# ## 위젯: 밸류를 하나씩 더해 보세요
#
# 쿼리 단어를 고르고, "더한 밸류 개수" 슬라이더를 0부터 7까지 한 칸씩 옮겨 보세요. 왼쪽은 가중치(이미 더한 토큰은 진하게, 방금 더한 토큰은 주황색), 오른쪽은 지금까지 더한 벡터의 성분 4개예요. 검은 가로선은 최종 출력이에요.
#
# **해 볼 것**
# - "cat"으로 한 칸씩 올려 보세요. 위치 2의 "sat"을 더할 때 막대가 가장 크게 움직여요.
# - 7까지 가면 막대가 검은 선과 정확히 만나요. 그게 "cat"의 문맥 벡터예요.
# - 쿼리를 "on"으로 바꿔 보세요. 이번에는 어떤 토큰에서 가장 크게 움직이나요?
#
# **눈여겨볼 것**: 가중치가 작은 토큰은 더해도 막대가 거의 움직이지 않아요. 가중합은 "주목한 만큼만 가져오기"예요.

# %% [markdown] lang="en"
# ## Widget: add the values one by one
#
# Pick a query word, then move the "keys added" slider from 0 to 7, one step at a time. On the left, the weights (tokens already added in full colour, the one just added in orange); on the right, the 4 components of the sum so far. The black marks are the final output.
#
# **Try this**
# - With "cat", go up one step at a time. Adding the 3rd key ("sat") moves the bars the most.
# - At 7 the bars meet the black marks exactly: that is "cat"'s contextual vector.
# - Switch the query to "on". Which token moves the bars most now?
#
# **Notice**: tokens with small weights barely move the bars. A weighted sum "takes only as much as it attends".

# %% slide="subslide"
qk.widgets.weighted_sum_stepper()

# %% [markdown] lang="ko" slide="slide"
# ## 행렬로 한 번에: softmax(Q·Kᵀ/√d_k)·V
#
# 모든 쿼리의 가중합을 한꺼번에 하면 (7, 7) 어텐션 가중치와 V의 행렬 곱이에요. 01강부터의 모든 단계를 한 줄로 쓰면 이게 바로 **스케일드 닷 프로덕트 어텐션**이에요.
#
# $$\operatorname{Attention}(Q, K, V) = \underbrace{\operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right)}_{(7,\,7)} \underbrace{V}_{(7,\,4)} \;\to\; (7,\,4)$$
#
# 출력의 i번째 행은 i번째 토큰의 가중합이에요. 위에서 하나씩 더해 만든 "cat"의 결과가 위치 1의 행(0부터 세요)과 같고, 패키지의 `scaled_dot_product_attention`과도 같아요.

# %% [markdown] lang="en"
# ## All at once: softmax(Q·Kᵀ/√d_k)·V
#
# Doing every query's weighted sum at once is the matrix product of the (7, 7) attention weights and V. Written in one line, every step since lesson 01 is **scaled dot-product attention**:
#
# $$\operatorname{Attention}(Q, K, V) = \underbrace{\operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right)}_{(7,\,7)} \underbrace{V}_{(7,\,4)} \;\to\; (7,\,4)$$
#
# Row i of the output is token i's weighted sum. Row 1 equals "cat"'s result built step by step above, and the whole matrix equals the package's `scaled_dot_product_attention`.

# %%
out = weights @ ex.v                                     # (7, 7)·(7, 4) → (7, 4)
print(out.shape, np.allclose(out[cat], steps.output))
print(np.allclose(out, qk.scaled_dot_product_attention(ex.q, ex.k, ex.v).output))

# %% [markdown] lang="ko" slide="slide"
# ## 각 행은 문맥 벡터예요
#
# 출력의 "cat" 행은 "cat" 자신의 밸류와 달라요. 주변 단어의 밸류가 가중치만큼 섞여 들어왔기 때문이에요. 그래서 이 벡터를 **문맥 벡터**라고 불러요.

# %% [markdown] lang="en"
# ## Each row is a contextual vector
#
# The output's "cat" row differs from "cat"'s own value: the other words' values are mixed in, by their weights. That is why it is called a **contextual vector**.

# %%
print(ex.v[cat])
print(out[cat])

# %% [markdown] lang="ko" slide="subslide"
# 실험으로 확인해 봐요. "cat"의 임베딩은 그대로 두고, **다른 단어 하나**("mat"의 자리)만 "on"의 임베딩으로 바꿔요. "cat"의 밸류는 변하지 않지만, "cat"의 문맥 벡터는 달라져요. 문장이 바뀌면 같은 단어의 출력도 바뀌는 거예요.

# %% [markdown] lang="en"
# An experiment: keep "cat"'s embedding and change **one other word** only (put "on"'s embedding where "mat" was). "cat"'s value does not change, but "cat"'s contextual vector does: a different sentence, a different output for the same word.

# %%
x2 = ex.x.copy()
x2[ex.index("mat")] = ex.x[ex.index("on")]          # ko: 다른 단어 하나만 바꿔요
                                                    # en: change one other word only
out2 = qk.scaled_dot_product_attention(x2 @ ex.w_q, x2 @ ex.w_k, x2 @ ex.w_v).output
print(np.allclose((x2 @ ex.w_v)[cat], ex.v[cat]), np.allclose(out2[cat], out[cat]))
print(out2[cat])

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 짧은 문장에서 "cat"의 문맥 벡터
#
# 문장이 앞의 세 토큰, "The cat sat"뿐이라면 "cat"의 문맥 벡터는 어떻게 될까요? 임베딩과 선형 변환은 그대로라서 Q, K, V는 `ex.q[:3]`, `ex.k[:3]`, `ex.v[:3]`이에요. 이 세 토큰만으로 "cat"(위치 `cat` = 1)의 점수 → 스케일링 → 소프트맥스 → 가중합을 계산해 `my_context`에 넣어 보세요. 모양은 `(4,)`예요.
#
# 주의: 7토큰 문장의 가중치에서 앞의 세 개만 잘라 쓰면 합이 1이 아니에요.

# %% [markdown] lang="en"
# ## Try it: "cat"'s contextual vector in a shorter sentence
#
# If the sentence were only its first three tokens, "The cat sat", what would "cat"'s contextual vector be? The embeddings and projections do not change, so Q, K and V are `ex.q[:3]`, `ex.k[:3]` and `ex.v[:3]`. With these three tokens only, compute "cat"'s (position `cat` = 1) scores → scaling → softmax → weighted sum into `my_context`, shape `(4,)`.
#
# Careful: cutting the 7-token sentence's weights to their first three does not give weights that sum to 1.

# %% exercise=true
my_context = ...   # ko: "The cat sat"에서 "cat"의 문맥 벡터, (4,)
                   # en: "cat"'s contextual vector in "The cat sat", (4,)
qk.checks.check_prefix_context(my_context, ex, token="cat", n_tokens=3)

# %% solution=true
w3 = qk.softmax(ex.k[:3] @ ex.q[cat] / np.sqrt(ex.d_k))   # ko: (3,): 키 3개에 대한 가중치, 합 1
                                                          # en: (3,): weights over the 3 keys, sum 1
my_context = w3 @ ex.v[:3]                                # (3,)·(3, 4) → (4,)
qk.checks.check_prefix_context(my_context, ex, token="cat", n_tokens=3).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 가중합: 토큰마다 밸류에 가중치를 곱해 모두 더해요. "cat"에서는 가중치 0.47인 "sat"의 항이 가장 커요.
# - 가중치 한 줄 `(7,)` × V `(7, 4)` → `(4,)`. 모든 쿼리를 한 번에 하면 softmax(Q·Kᵀ/√d_k)·V, `(7, 7)`·`(7, 4)` → `(7, 4)`.
# - 이게 스케일드 닷 프로덕트 어텐션의 전부예요: Q, K, V 만들기 → 내적 → 스케일링 → 소프트맥스 → 가중합.
# - 출력의 각 행은 문맥 벡터예요. 다른 단어가 바뀌면 같은 단어의 출력도 바뀌어요.
#
# 다음 시간에는 인코더의 셀프 어텐션에서 모든 토큰이 동시에 서로를 바라보는 모습을 봐요.
#
# [다음: 06. 인코더의 셀프 어텐션 →](06_encoder_self_attention.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - Weighted sum: multiply each token's value by its weight and add them all. For "cat", the term of "sat" (weight 0.47) is the largest.
# - One weight row `(7,)` × V `(7, 4)` → `(4,)`. All queries at once: softmax(Q·Kᵀ/√d_k)·V, `(7, 7)`·`(7, 4)` → `(7, 4)`.
# - That is all of scaled dot-product attention: make Q, K, V → dot products → scaling → softmax → weighted sum.
# - Each output row is a contextual vector: change another word, and the same word's output changes.
#
# Next: the encoder's self-attention, where every token looks at every other token at once.
#
# [Next: 06. Self-attention in the encoder →](06_encoder_self_attention.ipynb)
