# Lesson 12's source: make notebooks LESSON=12 builds notebooks/{ko,en}/12_positions.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 12. 여기는 몇 번째 자리일까요? 어텐션 속의 위치
#
# **이번 시간의 목표**
# - 어텐션만으로는 순서를 모른다는 걸 다시 확인하고, 인과 마스크가 있는 디코더는 왜 다른지 봐요.
# - 트랜스포머를 처음 발표한 논문("Attention Is All You Need", 2017)의 <b>사인파 위치 인코딩</b>을 그려 보고, 위치를 k칸 옮기는 일이 고정된 회전이라는 걸 계산으로 확인해요.
# - 11강 모델의 <b>학습된 위치 벡터</b> 512개를 비교하고, 그 한계(513번째 위치는 없어요)를 알아봐요.
# - <b>회전 위치 임베딩(RoPE)</b>이 쿼리와 키를 위치만큼 회전시키고, 그래서 위치가 점수에 상대 위치 m − n으로만 들어간다는 걸 확인해요.
#
# **수업 시간**: 약 50분

# %% [markdown] lang="en"
# # 12. Where am I? Positions in attention
#
# **Goals for this lesson**
# - See again that attention alone does not know the order, and why a decoder with a causal mask is different.
# - Draw the original paper's <b>sinusoidal positional encoding</b> and check by computation that moving k positions on is a fixed rotation.
# - Compare the 512 <b>learned position vectors</b> of lesson 11's model, and know their limit (there is no 513th position).
# - Show that <b>rotary position embedding (RoPE)</b> rotates queries and keys by their position, so that position enters a score only through the relative position m − n.
#
# **Class time**: about 50 minutes

# %% slide="skip"
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=3, suppress=True)
ex = qk.running_example()                 # "The cat sat on the mat."
enc = qk.encoder_decoder.encoder_example()  # ko: 06강의 멀티헤드 어텐션과 입력 x
                                            # en: lesson 06's multi-head attention and its input x

# %% [markdown] lang="ko" slide="slide"
# ## 왜 순서를 넣어 줘야 할까요?
#
# 06강에서 본 것처럼 셀프 어텐션의 계산에는 위치가 들어가지 않아요. "The cat sat on the mat."에서 "cat"과 "mat"의 자리를 바꿔 "The mat sat on the cat."을 만들어도, 인코더의 출력 행은 토큰을 따라 자리만 바뀌어요. 어텐션에게 두 문장은 같은 단어 묶음이에요.
#
# 그런데 <b>인과 마스크</b>를 쓰는 디코더는 달라요. 위치 i의 토큰(맨 앞이 위치 0)은 0번부터 i번까지만 보니까, 순서를 바꾸면 각 토큰이 *볼 수 있는 토큰*이 달라져요. 마스크 자체가 순서를 알고 있는 셈이에요. 같은 멀티헤드 어텐션으로 두 경우를 확인해 봐요.

# %% [markdown] lang="en"
# ## Why must order be put in?
#
# As lesson 06 showed, no position enters self-attention's computation. Swap "cat" and "mat" in "The cat sat on the mat." to get "The mat sat on the cat.", and the encoder's output rows just move with their tokens: to attention the two sentences are the same bag of words.
#
# A decoder with a <b>causal mask</b> is different. Token i sees only tokens 0 to i, so a new order changes *which tokens* each one can see: the mask itself knows the order. Let's check both with the same multi-head attention.

# %%
order = [0, 5, 2, 3, 4, 1, 6]                       # ko: "cat"(1)과 "mat"(5)의 자리를 바꿔요
                                                    # en: swap "cat" (1) and "mat" (5)
print([enc.tokens[i] for i in order])
check = qk.positions.causal_permutation_check(enc.mha, enc.x, order)
print(check.encoder_difference < 1e-12)          # ko: 마스크 없음(인코더): 행이 토큰을 따라 섞일 뿐
                                                 # en: no mask (encoder): the rows just move
print(round(check.causal_difference, 3))         # ko: 인과 마스크(디코더): 최대 차이
                                                 # en: causal mask (decoder): largest difference

# %% [markdown] lang="ko" slide="subslide"
# 인코더에서는 섞은 입력의 출력이, 원래 출력을 같은 순서로 섞은 것과 같아요. 반올림 오차만큼만 달라요. 디코더에서는 차이가 분명해요.
#
# 인과 마스크가 주는 건 순서만이 아니에요. 위치 i의 행의 소프트맥스는 정확히 키 i + 1개에 걸쳐 계산되니까, 위치 정보를 하나도 넣지 않아도 **절대 위치**를 계산할 수 있어요. 쿼리를 모두 0으로 두면 점수가 모두 0이 되어 가중치가 볼 수 있는 키에 똑같이 나뉘어요. 여기에 첫 토큰에서만 1이고 나머지에서는 0인 밸류를 주면, 위치 i의 출력은 1/(i + 1)이에요. 패키지의 어텐션으로 확인해요.

# %% [markdown] lang="en"
# In the encoder the shuffled output is the original output shuffled (up to rounding). In the decoder it clearly is not.
#
# The causal mask gives more than the order. Row i's softmax runs over exactly i + 1 keys, so **absolute position** can be computed with no position information at all. Make every query 0: every score is 0 and the weights are shared equally among the keys a row may see. Give a value that is 1 at the first token and 0 elsewhere, and the output at position i is 1/(i + 1). Check it with the package's attention.

# %%
signal = qk.positions.causal_position_signal(7)   # ko: 쿼리 0, 첫 토큰만 1인 밸류, 인과 마스크
                                                  # en: queries 0, a value marking token 0, causal mask
print(signal.round(3))                            # ko: 위치 0, 1, ..., 6의 출력: 1/(i + 1)
                                                  # en: the output at positions 0, 1, ..., 6: 1/(i + 1)

# %% [markdown] lang="ko" slide="subslide"
# 위치 인코딩 없이 학습한 디코더도 절대 위치를 배워요. Haviv 외(2022)는 그 방법이 바로 이렇게 앞 토큰의 수를 세는 것이라고 추측해요. 그래도 대부분의 모델은 위치 정보를 따로 넣어요. 마스크에서 읽어 낸 위치 신호 1/(i + 1)은 뒤로 갈수록 이웃한 위치끼리 값이 거의 같아져서(1/50과 1/51처럼), 먼 위치일수록 구별하기 어려워요. 또 학습 때보다 긴 글에서 어떻게 될지 조절할 방법도 없어요. 인코더에는 이런 신호조차 없어요.
#
# 이번 시간에는 흔히 쓰는 방법 세 가지를 봐요. 점수에 거리에 따라 정해진 편향을 더하는 방법(T5, ALiBi)도 있어요.

# %% [markdown] lang="en"
# Decoders trained with no positional encoding do learn absolute positions; the paper conjectures they do it this way, by counting the tokens they can see (Haviv et al., 2022). Most models add position information anyway: read from the mask, neighbouring positions differ less and less (1/(i + 1) against 1/(i + 2)), so far positions are hard to tell apart, and nothing controls what happens at lengths longer than those seen in training. An encoder does not even have this signal.
#
# This lesson shows the three common ways. Others add a bias fixed by the distance to the scores (T5, ALiBi).

# %% [markdown] lang="ko" slide="slide"
# ## 1. 사인파 위치 인코딩: 위치마다 정해진 벡터를 더해요
#
# 원래 트랜스포머 논문은 위치 p마다 d_model 차원의 벡터를 공식으로 만들어 임베딩에 <b>더해요</b>. 차원 쌍 i마다 주파수가 달라요.
#
# $$PE_{p,\,2i} = \sin\!\left(\frac{p}{10000^{2i/d}}\right), \qquad PE_{p,\,2i+1} = \cos\!\left(\frac{p}{10000^{2i/d}}\right)$$
#
# 여기서 d = d_model이에요. 왼쪽 차원은 위치마다 빠르게, 오른쪽 차원은 아주 느리게 바뀌어요. 시계의 초침·분침·시침처럼요. 09강에서 쓴 작은 디코더(`TinyTransformer`)도 임베딩에 이 벡터를 더해요.

# %% [markdown] lang="en"
# ## 1. Sinusoidal positions: a fixed vector added per position
#
# The original Transformer paper builds a d_model-dimensional vector for each position p from a formula and <b>adds</b> it to the embedding. Each pair of dimensions i has its own frequency:
#
# $$PE_{p,\,2i} = \sin\!\left(\frac{p}{10000^{2i/d}}\right), \qquad PE_{p,\,2i+1} = \cos\!\left(\frac{p}{10000^{2i/d}}\right)$$
#
# Here d = d_model. The left dimensions change quickly from position to position, the right ones very slowly, like the second, minute and hour hands of a clock. The small decoder of lesson 09 (`TinyTransformer`) adds these vectors to its embeddings too.

# %% slide="subslide"
pe = qk.positions.sinusoidal_positions(64, 64)     # (positions, d_model)
ax = qk.plots.plot_position_vectors(pe)

# %% [markdown] lang="ko" slide="subslide"
# 논문이 이 공식을 고른 이유가 있어요. 쌍 i의 (sin, cos)는 위치가 한 칸 갈 때마다 각도 ω_i = 1/10000^(2i/d)만큼 도는 화살표예요. 그래서 위치를 k칸 옮기면 각 쌍이 k·ω_i만큼 **회전**해요. 회전 행렬은 벡터의 길이는 그대로 두고 방향만 돌리는 행렬이에요. 이 회전은 p와 상관없이 k만으로 정해지는 행렬 M_k 하나이고, 식으로 쓰면 PE(p + k) = PE(p)·M_k예요. 논문은 이 성질 덕분에 모델이 "3칸 앞"을 어느 위치에서든 같은 방식으로 쉽게 배울 거라고 기대했어요. 모든 p에서 맞는지 확인해 봐요.

# %% [markdown] lang="en"
# The paper chose this formula for a reason. The (sin, cos) of pair i is an arrow that turns by the angle ω_i = 1/10000^(2i/d) with each position. So moving k positions on **rotates** each pair by k·ω_i. A rotation matrix turns a vector without changing its length. This rotation is one matrix M_k fixed by k alone, whatever p is: PE(p + k) = PE(p)·M_k. The paper hoped this would make it easy for a model to learn "3 positions ahead" the same way everywhere. Let's check it for every p.

# %%
pe64 = qk.positions.sinusoidal_positions(64, 64, dtype=np.float64)
m3 = qk.positions.sinusoidal_shift_matrix(3, 64)   # ko: (64, 64): 3칸 옮기기
                                                   # en: (64, 64): move 3 positions on
print(np.allclose(pe64[:61] @ m3, pe64[3:], atol=1e-12))   # ko: 모든 p에서 PE(p+3) = PE(p)·M_3
                                                           # en: PE(p+3) = PE(p)·M_3 for every p

# %% [markdown] lang="ko" slide="slide"
# ## 2. 학습된 위치 벡터: 위치마다 배운 벡터를 더해요
#
# BERT 같은 모델은 공식 대신 위치마다 벡터 하나를 **학습**해서 더해요. 11강의 진짜 모델(all-MiniLM-L6-v2)에는 이런 벡터가 512개 있어요(384차원). 학습이 끝난 표에서 위치끼리의 코사인 유사도를 그려 봐요. 대각선은 위치를 자기 자신과 비교한 값이라 정의상 1이에요. 눈여겨볼 곳은 대각선 **옆의 띠**예요. 아무도 "이웃은 비슷하게"라고 가르치지 않았는데, 이웃한 위치끼리 비슷해요. 대각선과 나란한 줄무늬도 여러 개 보여요. 대략 6칸마다 다시 비슷해져요(위치 10은 15, 22와 0.7쯤). 학습된 벡터가 사인파처럼 주기가 있는 성분을 스스로 배운 거예요.

# %% [markdown] lang="en"
# ## 2. Learned positions: a trained vector added per position
#
# Models like BERT **learn** one vector per position instead of using a formula, and add it the same way. Lesson 11's real model (all-MiniLM-L6-v2) has 512 of them (384 dimensions). Let's draw the cosine similarity of every position with every other in the trained table. The diagonal compares each position with itself, so it is 1 by definition; look at the **band beside it**. Nobody taught the model "neighbours are alike", yet neighbouring positions are. Several stripes run parallel to the diagonal too: about every 6 positions the vectors are alike again (position 10 has about 0.7 with 15 and with 22). The learned vectors found periodic parts, like sine waves, on their own.

# %% slide="subslide"
learned = qk.positions.learned_positions()          # ko: (512, 384): 위치마다 학습된 벡터 하나
                                                    # en: (512, 384): one trained vector per position
similarity = qk.positions.cosine_similarity_matrix(learned)   # (512, 512)
print(learned.shape)
print(similarity[10, [9, 11, 15, 19, 22, 200]])     # ko: 위치 10과 위치 9, 11, 15, 19, 22, 200의 유사도
                                                    # en: position 10 against 9, 11, 15, 19, 22, 200
ax = qk.plots.plot_position_similarity(similarity[:128, :128])

# %% [markdown] lang="ko" slide="subslide"
# 학습된 위치 벡터의 한계는 표의 크기예요. 행이 512개뿐이라서 이 모델은 토큰 512개보다 긴 글을 읽을 수 없어요(위치는 0번부터 511번까지예요). 11강의 `model(texts)`가 그보다 긴 글에 오류를 내는 이유예요. 학습된 행이 있다고 해서 모델이 그 위치를 잘 쓰도록 배웠다는 뜻은 아니에요. all-MiniLM-L6-v2의 행 512개는 모두 사전 학습(처음에 모델을 학습하는 단계)에서 학습됐어요. 하지만 그 뒤에는 토큰 128개로 자른 글로 미세 조정(이미 학습된 모델을 한 가지 일에 맞게 조금 더 학습하는 것)됐고, sentence-transformers도 쓸 때 기본으로 256개에서 잘라요. 사인파 공식은 어느 위치든 계산할 수 있지만, 학습 때 본 적 없는 먼 위치에서 모델이 잘 동작한다는 보장은 없어요.

# %% [markdown] lang="en"
# The limit of learned positions is the table's size: with 512 rows, this model cannot read past position 511 (counting from 0). That is why lesson 11's `model(texts)` refuses longer texts. And having a trained row does not mean the model learned to use that position well: all-MiniLM-L6-v2's 512 rows were all trained in pre-training (the first training of a model), but it was then fine-tuned on texts cut to 128 tokens, and sentence-transformers too cuts its input at 256 by default. The sinusoidal formula gives a vector for any position, but nothing guarantees that a model works at distant positions it never saw in training.

# %% [markdown] lang="ko" slide="slide"
# ## 3. 회전 위치 임베딩(RoPE): 더하지 않고 돌려요
#
# 요즘 나오는 대형 언어 모델(LLM: Llama, Mistral, Qwen 등) 대부분은 RoPE를 써요. RoPE는 임베딩 x에 아무것도 더하지 않아요. 대신 **모든 레이어에서**, 점수를 계산하기 직전에 쿼리와 키를 위치만큼 **회전**시켜요. 밸류는 건드리지 않아요.
#
# 차원 i와 i + d/2를 한 쌍으로 묶어 평면 위의 화살표 하나처럼 보고, 위치 m에서 각도 m·θ_i만큼 돌려요. θ_i = 10000^(−2i/d)이라서, 첫 쌍은 위치가 한 칸 갈 때마다 1라디안씩 빠르게 돌고 마지막 쌍은 아주 느리게 돌아요. θ_i는 사인파 위치 인코딩의 ω_i와 같은 공식이에요. 다만 d가 d_model이 아니라 돌리는 벡터의 폭(헤드 하나의 head_dim)이에요. 밑 10000은 RoPE를 처음 제안한 RoFormer 논문(Su 외, 2021)과 Llama 2의 값이고, Llama 3처럼 500,000을 써서 느린 쌍을 더 느리게 돌리는 모델도 있어요. 이렇게 i와 i + d/2를 짝짓는 건 Hugging Face와 GPT-NeoX 코드의 **짝짓는 방식**("rotate half")이고, 이 코스도 그걸 따라요. RoFormer 논문과 Meta의 Llama 원래 코드는 이웃한 차원 2i와 2i + 1을 짝지어요. 차원 순서를 정해진 방식으로 한 번 바꾸면 두 방식은 같은 회전이에요.
#
# $$\begin{pmatrix} x_i' \\ x_{i+d/2}' \end{pmatrix} = \begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix} \begin{pmatrix} x_i \\ x_{i+d/2} \end{pmatrix}$$
#
# 두 벡터를 **같은 각도만큼** 돌리면 둘 사이의 각도는 그대로예요. 위치 m의 쿼리는 m·θ_i, 위치 n의 키는 n·θ_i만큼 돌지만, 둘 다 n·θ_i만큼 되돌려도 내적은 같으니 쿼리만 (m − n)·θ_i 돈 것과 같아요. 그래서 위치는 점수에 둘이 돈 각도의 **차이** (m − n)·θ_i로만 들어가요. 점수를 정하는 건 여전히 q와 k의 내용이고, m − n에는 부호가 있어요. 3칸 앞과 3칸 뒤는 서로 다른 점수를 줘요.

# %% [markdown] lang="en"
# ## 3. Rotary positions (RoPE): rotate, don't add
#
# Most recent LLMs (Llama, Mistral, Qwen, …) use RoPE. RoPE adds nothing to the embedding x. Instead, **in every layer**, right before the scores, it **rotates** the queries and keys by their position. The values are left alone.
#
# Dimensions i and i + d/2 form a pair (one arrow in a plane), turned at position m by the angle m·θ_i. With θ_i = 10000^(−2i/d), the first pair turns fast, 1 radian per position, and the last very slowly; θ_i has the sinusoidal ω_i's formula, with d the head's width instead of d_model. The base 10000 is RoFormer's and Llama 2's; some models raise it (Llama 3 uses 500,000) so that the slow pairs turn more slowly still. Pairing i with i + d/2 is the layout of Hugging Face's and GPT-NeoX's code ("rotate half"), which this course follows; the RoFormer paper and Meta's original Llama code pair neighbouring dimensions 2i and 2i + 1. After a fixed reordering of the dimensions the two are the same rotation.
#
# $$\begin{pmatrix} x_i' \\ x_{i+d/2}' \end{pmatrix} = \begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix} \begin{pmatrix} x_i \\ x_{i+d/2} \end{pmatrix}$$
#
# Turning two vectors **by the same angle** leaves the angle between them alone. A query at position m turns by m·θ_i and a key at position n by n·θ_i; turning both back by n·θ_i keeps their dot product, so it equals the query alone turned by (m − n)·θ_i. Position therefore enters the score only through the **difference** of their turns, (m − n)·θ_i. The content of q and k still sets the score, and m − n is signed: 3 positions ahead and 3 behind give different scores.

# %%
q = ex.q                                        # ko: (7, 4): 문장의 쿼리
                                                # en: (7, 4): the sentence's queries
k = ex.k                                        # ko: (7, 4): 문장의 키
                                                # en: (7, 4): the sentence's keys
q_rot, k_rot = qk.apply_rope(q), qk.apply_rope(k)   # ko: 위치 0~6만큼 회전, 모양은 그대로 (7, 4)
                                                    # en: turned by positions 0-6; same shape (7, 4)
# en: lengths kept
print(q_rot.shape, np.allclose(np.linalg.norm(q_rot, axis=1), np.linalg.norm(q, axis=1)))  # ko: 길이는 그대로

# %% [markdown] lang="ko" slide="subslide"
# 확인해 봐요. 64차원의 무작위 쿼리와 키를 위치 (m, n) = (5, 2)에 두고 점수를 계산해요. 그다음 두 위치를 똑같이 1000칸씩 옮겨서 (1005, 1002)에 두고 다시 계산해요. 거리는 둘 다 3이에요.

# %% [markdown] lang="en"
# Let's check. Put a random 64-dimensional query and key at positions (m, n) = (5, 2) and compute the score; then move both 1000 positions on, to (1005, 1002), and compute it again. Both are 3 apart.

# %%
rng = np.random.default_rng(0)
q64, k64 = rng.normal(size=(1, 64)), rng.normal(size=(1, 64))
near = (qk.apply_rope(q64, [5]) @ qk.apply_rope(k64, [2]).T).item()
far = (qk.apply_rope(q64, [1005]) @ qk.apply_rope(k64, [1002]).T).item()
print(round(near, 6), round(far, 6), abs(near - far) < 1e-9)   # ko: (5, 2), (1005, 1002), 같은가요?
                                                               # en: (5, 2), (1005, 1002), equal?

# %% [markdown] lang="ko" slide="subslide"
# 두 점수가 부동소수점 오차 범위 안에서 같아요. 절대 위치는 사라지고 **상대 위치**만 남아요.
#
# 성질이 하나 더 있어요. 쿼리와 키가 **같은 벡터**(q = k)일 때 둘을 m − n칸 떨어뜨리면, 점수의 평균(무작위로 뽑은 q 여러 개에 대한 평균)이 거리에 따라 출렁이면서 **줄어들어요**. 비슷한 벡터끼리도 멀리 있으면 점수가 덜 나온다는 뜻이에요. 64차원에서 거리 0~200의 평균 점수를 그려 봐요.

# %% [markdown] lang="en"
# The two scores agree to floating-point precision: the absolute positions are gone, only the **relative position** is left.
#
# One more property: when the query and the key are **the same vector** (q = k), placing them m − n positions apart makes the average score (over many random q) **fall** with the distance, with ripples. Similar vectors score less when far apart. Here is the average score for distances 0 to 200 at 64 dimensions.

# %% slide="subslide"
distances = np.arange(0, 201)
decay = qk.positions.rope_score_by_distance(64, distances)     # (201,)
print(decay[[0, 10, 50, 200]])
ax = qk.plots.plot_rope_score_by_distance(distances, decay)

# %% [markdown] lang="ko" slide="subslide"
# 거리에 따라 점수가 줄어드는 이 현상(감쇠)은 비슷한 벡터에만 해당하는 이야기예요. 서로 상관없이 뽑은 q와 k라면 점수의 평균은 어느 거리에서나 0이에요. 무작위 쌍 2000개로 두 경우를 비교해 봐요. 그리고 학습된 모델이 RoPE의 쌍들을 쓰는 방식은 감쇠만이 아니에요. 예를 들어 거의 돌지 않는 느린 쌍은 보통 쓰는 길이 안에서는 위치와 거의 상관없이 내용을 비교하는 데 쓰이기도 해요. 다만 거리가 아주 멀면 느린 쌍도 많이 돌아요(Barbero 외, 2024).

# %% [markdown] lang="en"
# This decay is about similar vectors. For a q and a k drawn independently, the average score is 0 at every distance. Compare the two cases on 2000 random pairs. Nor is this decay the only way trained models use RoPE's pairs: the slow pairs, which hardly turn, can for instance compare content almost regardless of position over the lengths used (over long enough distances even they turn; Barbero et al., 2024).

# %%
same = qk.positions.rope_mean_score(64, [0, 10, 50, 200], same=True)    # ko: q = k: 위 곡선과 같아요
                                                                        # en: q = k: the curve above
other = qk.positions.rope_mean_score(64, [0, 10, 50, 200], same=False)  # ko: 서로 독립인 q와 k
                                                                        # en: independent q and k
print(same.round(1))
print(other.round(1))                                                    # ko: 거리와 상관없이 0 근처
                                                                         # en: near 0 at every distance

# %% [markdown] lang="ko" slide="slide"
# ## 돌려 보기
#
# "cat"의 쿼리와 "sat"의 키(d_k = 4, 그러니까 차원 쌍이 두 개)를 위치 m과 n에 놓아요. 왼쪽 두 그림은 두 쌍이 회전하는 모습이고 흐린 화살표는 회전 전이에요. 오른쪽은 거리 m − n에 따른 점수와 지금의 점수(빨간 점)예요.
#
# - m을 움직이면 파란 화살표가 돌아요. 첫 쌍은 빨리, 둘째 쌍은 거의 안 돌아요.
# - m과 n을 **같은 칸 수만큼** 움직여 보세요. 화살표는 돌지만 빨간 점은 그대로예요.
# - 오른쪽 곡선은 줄어들지 않아요. d_k = 4에는 쌍이 두 개뿐이라, 빠른 쌍 때문에 점수가 위아래로 출렁이고(약 6.3칸마다 한 바퀴) 느린 쌍의 몫(초록 점선)은 거의 그대로예요. 앞에서 본 감쇠는 속도가 서로 다른 쌍이 많을 때(64차원) 나타나요.

# %% [markdown] lang="en"
# ## Turn it yourself
#
# "cat"'s query and "sat"'s key (d_k = 4, so two pairs of dimensions) sit at positions m and n. The two left panels show the pairs turning (faint arrows: before turning); the right panel shows the score for every distance m − n, with the current one in red.
#
# - Move m: the blue arrows turn, the first pair fast, the second hardly at all.
# - Move m and n **by the same amount**: the arrows turn, the red dot stays.
# - The curve on the right does not fall off. With d_k = 4 there are only two pairs: the fast pair makes the score swing up and down (one turn every 6.3 positions) around the slow pair's share (green dashes), which hardly changes. The decay above needs many pairs turning at different speeds (64 dimensions).

# %% slide="subslide" ignore_output=true
qk.widgets.rope_explorer()

# %% [markdown] lang="ko" slide="slide"
# ## RoPE는 어텐션 안에서 쓰여요
#
# RoPE를 쓰는 모델에서 어텐션 한 번은 이래요. 회전한 쿼리와 키로 점수를 내고, 밸류는 그대로 가중합해요. 레이어마다, 헤드마다 같은 회전을 다시 적용해요. 임베딩 x 자체에는 위치가 들어 있지 않아요.
#
# $$\text{output} = \text{softmax}\!\left(\frac{\text{RoPE}(Q)\,\text{RoPE}(K)^\top}{\sqrt{d_k}}\right) V$$

# %% [markdown] lang="en"
# ## RoPE lives inside attention
#
# In a model with RoPE, one attention step looks like this: scores from the rotated queries and keys, a weighted sum of the unrotated values. Every layer and every head applies the same rotation again; the embedding x itself carries no position.
#
# $$\text{output} = \text{softmax}\!\left(\frac{\text{RoPE}(Q)\,\text{RoPE}(K)^\top}{\sqrt{d_k}}\right) V$$

# %%
plain = qk.scaled_dot_product_attention(q, k, ex.v)
rope = qk.scaled_dot_product_attention(q_rot, k_rot, ex.v)     # ko: 밸류는 회전하지 않아요
                                                               # en: values are not rotated
cat = ex.index("cat")
print(plain.weights[cat])                                      # ko: 위치 없이
                                                               # en: no positions
print(rope.weights[cat])                                       # RoPE

# %% [markdown] lang="ko" slide="subslide"
# "cat"이 각 토큰에 주는 가중치가 바뀌었어요. 이제 점수에 "몇 칸 떨어져 있나"가 섞여 들어가요. 이 모델의 가중치 행렬 W_Q, W_K는 무작위라서, 두 행(위치 없이, RoPE) 중 어느 쪽이 "맞다"고 할 수는 없어요. 학습된 모델은 이 회전을 이용해 가까운 토큰이나 특정 거리의 토큰을 찾는 헤드를 만들어요.

# %% [markdown] lang="en"
# The weights "cat" gives each token changed: the scores now mix in "how many positions apart". This model's weight matrices are random, so neither row is "right"; a trained model uses the rotation to build heads that look at nearby tokens or at tokens a given distance away.

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기 1: 회전한 점수 계산하기
#
# "cat"의 쿼리를 **위치 7**에, "sat"의 키를 **위치 3**에 놓았을 때 RoPE 점수(회전한 쿼리와 회전한 키의 내적, 숫자 하나)를 계산해 `my_score`에 넣어 보세요. 쿼리는 `ex.q[ex.index("cat")]`에, 키는 `ex.k[ex.index("sat")]`에 있어요. `qk.apply_rope`에 위치를 주거나 `qk.positions.rope_rotation_matrix`를 써도 돼요.

# %% [markdown] lang="en"
# ## Try it 1: compute a rotated score
#
# Put "cat"'s query at **position 7** and "sat"'s key at **position 3**, and compute the RoPE score (the dot product of the rotated query and the rotated key, one number) into `my_score`. The query is `ex.q[ex.index("cat")]`, the key `ex.k[ex.index("sat")]`. You may give `qk.apply_rope` the positions, or use `qk.positions.rope_rotation_matrix`.

# %% exercise=true
my_score = ...   # ko: "cat"의 쿼리(위치 7)와 "sat"의 키(위치 3)의 RoPE 점수
                 # en: RoPE score of "cat"'s query (position 7) and "sat"'s key (position 3)
qk.checks.check_rope_score(my_score, ex, query_token="cat", query_position=7,
                           key_token="sat", key_position=3)

# %% solution=true
q_cat = qk.apply_rope(ex.q[ex.index("cat")][None, :], [7])   # ko: (1, 4): 위치 7만큼 회전
                                                             # en: (1, 4): turned for position 7
k_sat = qk.apply_rope(ex.k[ex.index("sat")][None, :], [3])   # ko: (1, 4): 위치 3만큼 회전
                                                             # en: (1, 4): turned for position 3
my_score = (q_cat @ k_sat.T).item()
qk.checks.check_rope_score(my_score, ex, query_token="cat", query_position=7,
                           key_token="sat", key_position=3).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기 2: 계산하지 말고 예측하기
#
# 이번에는 계산하지 말고 생각만으로 답해요. "cat"의 쿼리를 **위치 1007**로 옮겼어요. "sat"의 키를 **어느 위치 n**에 두면 직접 해보기 1과 똑같은 점수가 나올까요? 정수 하나를 `my_n`에 넣어 보세요. 확인은 그다음에 코드로 해 봐도 좋아요.

# %% [markdown] lang="en"
# ## Try it 2: predict, don't compute
#
# This time answer by thinking, not computing. "cat"'s query moves to **position 1007**. At **which position n** must "sat"'s key be for the score to equal the one in Try it 1? Put one integer into `my_n`; check it with code afterwards if you like.

# %% exercise=true
my_n = ...   # ko: "sat"의 키 위치 (정수 하나)
             # en: the position of "sat"'s key (one integer)
qk.checks.check_same_distance(my_n, query_position=7, key_position=3, new_query_position=1007)

# %% solution=true
my_n = 1007 - (7 - 3)   # ko: 위치는 거리 m − n으로만 들어가요: 7 − 3 = 1007 − n
                        # en: position enters only through m − n: 7 − 3 = 1007 − n
qk.checks.check_same_distance(my_n, query_position=7, key_position=3,
                              new_query_position=1007).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 어텐션만으로는 순서를 몰라요. 인코더의 출력은 토큰을 따라 섞일 뿐이에요. 인과 마스크가 있는 디코더는 순서를 알고, 행마다 볼 수 있는 키의 수(i + 1)에서 절대 위치까지 계산할 수 있어요. 그래도 위치를 더 확실하게, 원하는 대로 다루려고 위치 정보를 따로 넣어요.
# - <b>사인파 위치 인코딩</b>은 공식으로 만든 벡터를 맨 처음 임베딩에 한 번만 더해요(RoPE와 달리 레이어마다 하지 않아요). k칸 옮기기는 각 (sin, cos) 쌍을 정해진 각도만큼 돌리는 회전이에요.
# - <b>학습된 위치 벡터</b>도 임베딩에 더해요. 학습된 표에서 이웃 위치는 서로 비슷하지만, 표의 크기(여기서는 512)를 넘는 위치는 없어요.
# - <b>RoPE</b>는 더하지 않아요. 모든 레이어에서 쿼리와 키를 위치만큼 회전시키고 밸류는 그대로 둬요. 그래서 위치는 점수에 상대 위치 m − n으로만 들어가요. q = k처럼 비슷한 벡터끼리는 거리가 멀수록 평균 점수가 작아지지만, 독립인 무작위 벡터의 평균 점수는 어느 거리에서나 0이에요.
#
# 다음 강에서는 긴 문장으로 넘어가요. 토큰이 수천 개가 되면 (n, n) 점수 행렬이 문제가 돼요.
#
# [다음: 13. 큰 규모의 어텐션 →](13_attention_at_scale.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - Attention alone does not know the order: the encoder's output just shuffles with the tokens. A decoder with a causal mask knows the order, and can even compute absolute position from the number of keys each row sees (i + 1); positions are added anyway, to be reliable and controllable.
# - <b>Sinusoidal positions</b> add a vector made by a formula to the embedding, once. Moving k positions on is a fixed rotation of each (sin, cos) pair.
# - <b>Learned positions</b> are added too. In a trained table neighbouring positions are alike, but there is no position beyond the table (512 here).
# - <b>RoPE</b> adds nothing: in every layer it rotates queries and keys by their position and leaves values alone. So position enters a score only through the relative position m − n. For similar vectors (q = k) the average score falls with the distance; for independent random vectors it is 0 at every distance.
#
# The next lesson turns to long texts: with thousands of tokens, the (n, n) score matrix becomes the problem.
#
# [Next: 13. Attention at scale →](13_attention_at_scale.ipynb)
