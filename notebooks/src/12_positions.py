from nbsource import Lesson

lesson = Lesson()

lesson.md(slide="slide", ko="""
# 12. 나는 어디에 있을까요? 어텐션 속의 위치

**이번 시간의 목표**
- 어텐션만으로는 순서를 모른다는 걸 다시 확인하고, 인과 마스크가 있는 디코더는 왜 다른지 봐요.
- 원래 논문의 <b>사인파 위치 인코딩</b>을 그려 보고, 위치를 k칸 옮기는 일이 고정된 회전이라는 걸 계산으로 확인해요.
- 11강 모델의 <b>학습된 위치 벡터</b> 512개를 비교하고, 그 한계(513번째 위치는 없어요)를 알아요.
- <b>회전 위치 임베딩(RoPE)</b>이 쿼리와 키를 위치만큼 회전시키고, 그래서 점수가 상대 위치 m − n에만 달려 있다는 걸 보여요.

**수업 시간**: 약 45분
""", en="""
# 12. Where am I? Positions in attention

**Goals for this lesson**
- See again that attention alone does not know the order, and why a decoder with a causal mask is different.
- Draw the original paper's <b>sinusoidal positional encoding</b> and check by computation that moving k positions on is a fixed rotation.
- Compare the 512 <b>learned position vectors</b> of lesson 11's model, and know their limit (there is no 513th position).
- Show that <b>rotary position embedding (RoPE)</b> rotates queries and keys by their position, so that a score depends only on the relative position m − n.

**Class time**: about 45 minutes
""")

lesson.code(slide="skip", ko="""
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)                       # 그림과 메시지의 언어
np.set_printoptions(precision=3, suppress=True)
ex = qk.running_example()                 # "The cat sat on the mat."
enc = qk.encoder_decoder.encoder_example()  # 06강의 멀티헤드 어텐션과 입력 x
""", en="""
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)                       # language of plots and messages
np.set_printoptions(precision=3, suppress=True)
ex = qk.running_example()                 # "The cat sat on the mat."
enc = qk.encoder_decoder.encoder_example()  # lesson 06's multi-head attention and its input x
""")

lesson.md(slide="slide", ko="""
## 왜 순서를 넣어 줘야 할까요?

06강에서 본 것처럼 셀프 어텐션의 계산에는 위치가 들어가지 않아요. "The cat sat on the mat."에서 "cat"과 "mat"의 자리를 바꿔 "The mat sat on the cat."을 만들어도, 인코더의 출력 행은 토큰을 따라 자리만 바뀌어요. 어텐션에게 두 문장은 같은 단어 묶음이에요.

그런데 <b>인과 마스크</b>를 쓰는 디코더는 달라요. i번째 토큰은 0번부터 i번까지만 보니까, 순서를 바꾸면 각 토큰이 *볼 수 있는 토큰*이 달라져요. 마스크 자체가 순서를 알고 있는 셈이에요. 같은 멀티헤드 어텐션으로 두 경우를 재 봐요.
""", en="""
## Why must order be put in?

As lesson 06 showed, no position enters self-attention's computation. Swap "cat" and "mat" in "The cat sat on the mat." to get "The mat sat on the cat.", and the encoder's output rows just move with their tokens: to attention the two sentences are the same bag of words.

A decoder with a <b>causal mask</b> is different. Token i sees only tokens 0 to i, so a new order changes *which tokens* each one can see: the mask itself knows the order. Let's measure both with the same multi-head attention.
""")

lesson.code(ko="""
order = [0, 5, 2, 3, 4, 1, 6]                       # "cat"(1)과 "mat"(5)을 바꿔요
print([enc.tokens[i] for i in order])
check = qk.positions.causal_permutation_check(enc.mha, enc.x, order)
print(check.encoder_difference < 1e-12)          # 마스크 없음(인코더): 행이 토큰을 따라 섞일 뿐
print(round(check.causal_difference, 3))         # 인과 마스크(디코더): 최대 차이
""", en="""
order = [0, 5, 2, 3, 4, 1, 6]                       # swap "cat" (1) and "mat" (5)
print([enc.tokens[i] for i in order])
check = qk.positions.causal_permutation_check(enc.mha, enc.x, order)
print(check.encoder_difference < 1e-12)          # no mask (encoder): the rows just move
print(round(check.causal_difference, 3))         # causal mask (decoder): largest difference
""")

lesson.md(slide="subslide", ko="""
인코더에서는 섞인 출력이 원래 출력을 똑같이 섞은 것과 같아요(반올림 오차만큼만 달라요). 디코더에서는 차이가 분명해요. 그래도 디코더가 아는 건 "누가 누구보다 앞인가"뿐이에요. "cat"이 1번 자리인지 5번 자리인지, 두 토큰이 몇 칸 떨어져 있는지는 어디에도 없어요. 그래서 인코더든 디코더든 위치 정보를 따로 넣어 줘요. 방법은 세 가지예요.
""", en="""
In the encoder the shuffled output is the original output shuffled (up to rounding). In the decoder it clearly is not. Still, all the decoder knows is "who comes before whom": whether "cat" is at position 1 or 5, or how far apart two tokens are, is nowhere. So encoders and decoders alike are given position information. There are three ways.
""")

lesson.md(slide="slide", ko="""
## 1. 사인파 위치 인코딩: 위치마다 정해진 벡터를 더해요

원래 트랜스포머 논문은 위치 p마다 d_model 차원의 벡터를 공식으로 만들어 임베딩에 <b>더해요</b>. 차원 쌍 i마다 주파수가 달라요.

$$PE_{p,\\,2i} = \\sin\\!\\left(\\frac{p}{10000^{2i/d}}\\right), \\qquad PE_{p,\\,2i+1} = \\cos\\!\\left(\\frac{p}{10000^{2i/d}}\\right)$$

왼쪽 차원은 위치마다 빠르게, 오른쪽 차원은 아주 느리게 바뀌어요. 시계의 초침·분침·시침처럼요. 09강의 `TinyTransformer`도 이 벡터를 써요.
""", en="""
## 1. Sinusoidal positions: a fixed vector added per position

The original Transformer paper builds a d_model-dimensional vector for each position p from a formula and <b>adds</b> it to the embedding. Each pair of dimensions i has its own frequency:

$$PE_{p,\\,2i} = \\sin\\!\\left(\\frac{p}{10000^{2i/d}}\\right), \\qquad PE_{p,\\,2i+1} = \\cos\\!\\left(\\frac{p}{10000^{2i/d}}\\right)$$

The left dimensions change quickly from position to position, the right ones very slowly, like the second, minute and hour hands of a clock. Lesson 09's `TinyTransformer` uses these vectors.
""")

lesson.code(slide="subslide", source="""
pe = qk.positions.sinusoidal_positions(64, 64)     # (positions, d_model)
ax = qk.plots.plot_position_vectors(pe)""")

lesson.md(slide="subslide", ko="""
논문이 이 공식을 고른 이유가 있어요. 위치를 k칸 옮기면 각 (sin, cos) 쌍이 k·ω_i만큼 **회전**해요. 그 회전은 p와 상관없이 k만으로 정해지는 행렬 M_k 하나예요: PE(p + k) = PE(p)·M_k. 모델이 "3칸 앞"을 어느 위치에서든 같은 방식으로 알아볼 수 있다는 뜻이에요. 모든 p에 대해 맞는지 재 봐요.
""", en="""
The paper chose this formula for a reason. Moving k positions on **rotates** each (sin, cos) pair by k·ω_i, and that rotation is one matrix M_k fixed by k alone, whatever p is: PE(p + k) = PE(p)·M_k. A model can recognise "3 positions ahead" the same way everywhere. Let's check it for every p.
""")

lesson.code(ko="""
pe64 = qk.positions.sinusoidal_positions(64, 64, dtype=np.float64)
m3 = qk.positions.sinusoidal_shift_matrix(3, 64)   # (64, 64): 3칸 옮기기
print(np.allclose(pe64[:61] @ m3, pe64[3:], atol=1e-12))   # 모든 p에서 PE(p+3) = PE(p)·M_3
""", en="""
pe64 = qk.positions.sinusoidal_positions(64, 64, dtype=np.float64)
m3 = qk.positions.sinusoidal_shift_matrix(3, 64)   # (64, 64): move 3 positions on
print(np.allclose(pe64[:61] @ m3, pe64[3:], atol=1e-12))   # PE(p+3) = PE(p)·M_3 for every p
""")

lesson.md(slide="slide", ko="""
## 2. 학습된 위치 벡터: 위치마다 배운 벡터를 더해요

BERT 같은 모델은 공식 대신 위치마다 벡터 하나를 **학습**해서 더해요. 11강의 진짜 모델(all-MiniLM-L6-v2)에는 이런 벡터가 512개 있어요(384차원). 학습이 끝난 표에서 위치끼리의 코사인 유사도를 그려 봐요. 아무도 "이웃은 비슷하게"라고 가르치지 않았는데, 대각선 근처가 밝아요.
""", en="""
## 2. Learned positions: a trained vector added per position

Models like BERT **learn** one vector per position instead of using a formula, and add it the same way. Lesson 11's real model (all-MiniLM-L6-v2) has 512 of them (384 dimensions). Let's draw the cosine similarity of every position with every other in the trained table. Nobody taught it "neighbours are alike", yet the diagonal is bright.
""")

lesson.code(slide="subslide", ko="""
learned = qk.positions.learned_positions()          # (512, 384): 위치마다 학습된 벡터 하나
similarity = qk.positions.cosine_similarity_matrix(learned)   # (512, 512)
print(learned.shape)
print(similarity[10, [9, 11, 20, 200]])             # 위치 10과 위치 9, 11, 20, 200의 유사도
ax = qk.plots.plot_position_similarity(similarity[:128, :128])
""", en="""
learned = qk.positions.learned_positions()          # (512, 384): one trained vector per position
similarity = qk.positions.cosine_similarity_matrix(learned)   # (512, 512)
print(learned.shape)
print(similarity[10, [9, 11, 20, 200]])             # position 10 against positions 9, 11, 20, 200
ax = qk.plots.plot_position_similarity(similarity[:128, :128])
""")

lesson.md(slide="subslide", ko="""
학습된 위치 벡터의 한계는 표의 크기예요. 행이 512개뿐이라서 이 모델은 512번째 위치(0부터 세면 511번)보다 긴 글을 읽을 수 없어요. 11강의 `model(texts)`가 그보다 긴 글에 오류를 내는 이유예요. 사인파 공식은 어느 위치든 계산할 수 있지만, 학습 때 본 적 없는 먼 위치에서 모델이 잘 동작한다는 보장은 없어요.
""", en="""
The limit of learned positions is the table's size: with 512 rows, this model cannot read past position 511 (counting from 0). That is why lesson 11's `model(texts)` refuses longer texts. The sinusoidal formula gives a vector for any position, but nothing guarantees that a model works at distant positions it never saw in training.
""")

lesson.md(slide="slide", ko="""
## 3. 회전 위치 임베딩(RoPE): 더하지 않고 돌려요

요즘 대부분의 LLM(Llama, Mistral, Qwen 등)은 RoPE를 써요. RoPE는 임베딩 x에 아무것도 더하지 않아요. 대신 **모든 레이어에서**, 점수를 계산하기 직전에 쿼리와 키를 위치만큼 **회전**시켜요. 밸류는 건드리지 않아요.

차원 i와 i + d/2를 한 쌍(평면 위의 화살표 하나)으로 보고, 위치 m에서 각도 m·θ_i만큼 돌려요. θ_i = 10000^(−2i/d)라서 첫 쌍은 위치마다 1라디안씩 빨리, 마지막 쌍은 아주 느리게 돌아요.

$$\\begin{pmatrix} x_i' \\\\ x_{i+d/2}' \\end{pmatrix} = \\begin{pmatrix} \\cos m\\theta_i & -\\sin m\\theta_i \\\\ \\sin m\\theta_i & \\cos m\\theta_i \\end{pmatrix} \\begin{pmatrix} x_i \\\\ x_{i+d/2} \\end{pmatrix}$$

두 벡터를 같이 돌리면 둘 사이의 각도는 그대로예요. 그래서 위치 m의 쿼리와 위치 n의 키의 내적은 둘이 돈 각도의 **차이** (m − n)·θ_i에만 달려 있어요.
""", en="""
## 3. Rotary positions (RoPE): rotate, don't add

Most recent LLMs (Llama, Mistral, Qwen, …) use RoPE. RoPE adds nothing to the embedding x. Instead, **in every layer**, right before the scores, it **rotates** the queries and keys by their position. The values are left alone.

Dimensions i and i + d/2 form a pair (one arrow in a plane), turned at position m by the angle m·θ_i. With θ_i = 10000^(−2i/d), the first pair turns fast, 1 radian per position, and the last very slowly.

$$\\begin{pmatrix} x_i' \\\\ x_{i+d/2}' \\end{pmatrix} = \\begin{pmatrix} \\cos m\\theta_i & -\\sin m\\theta_i \\\\ \\sin m\\theta_i & \\cos m\\theta_i \\end{pmatrix} \\begin{pmatrix} x_i \\\\ x_{i+d/2} \\end{pmatrix}$$

Turning two vectors leaves the angle between them alone. So the dot product of a query at position m and a key at position n depends only on the **difference** of their turns, (m − n)·θ_i.
""")

lesson.code(ko="""
q = ex.q                                        # (7, 4): 문장의 쿼리
k = ex.k                                        # (7, 4): 문장의 키
q_rot, k_rot = qk.apply_rope(q), qk.apply_rope(k)   # 위치 0~6만큼 회전, 모양은 그대로 (7, 4)
print(q_rot.shape, np.allclose(np.linalg.norm(q_rot, axis=1), np.linalg.norm(q, axis=1)))  # 길이는 그대로
""", en="""
q = ex.q                                        # (7, 4): the sentence's queries
k = ex.k                                        # (7, 4): the sentence's keys
q_rot, k_rot = qk.apply_rope(q), qk.apply_rope(k)   # turned by positions 0-6; same shape (7, 4)
# lengths kept
print(q_rot.shape, np.allclose(np.linalg.norm(q_rot, axis=1), np.linalg.norm(q, axis=1)))
""")

lesson.md(slide="subslide", ko="""
확인해 봐요. 64차원의 무작위 쿼리와 키를 위치 (m, n) = (5, 2)에 두고 점수를 재요. 그다음 두 위치를 똑같이 1000칸씩 옮겨서 (1005, 1002)에 두고 다시 재요. 거리는 둘 다 3이에요.
""", en="""
Let's check. Put a random 64-dimensional query and key at positions (m, n) = (5, 2) and measure the score; then move both 1000 positions on, to (1005, 1002), and measure again. Both are 3 apart.
""")

lesson.code(ko="""
rng = np.random.default_rng(0)
q64, k64 = rng.normal(size=(1, 64)), rng.normal(size=(1, 64))
near = (qk.apply_rope(q64, [5]) @ qk.apply_rope(k64, [2]).T).item()
far = (qk.apply_rope(q64, [1005]) @ qk.apply_rope(k64, [1002]).T).item()
print(round(near, 6), round(far, 6), abs(near - far) < 1e-9)   # (5, 2), (1005, 1002), 같은가요?
""", en="""
rng = np.random.default_rng(0)
q64, k64 = rng.normal(size=(1, 64)), rng.normal(size=(1, 64))
near = (qk.apply_rope(q64, [5]) @ qk.apply_rope(k64, [2]).T).item()
far = (qk.apply_rope(q64, [1005]) @ qk.apply_rope(k64, [1002]).T).item()
print(round(near, 6), round(far, 6), abs(near - far) < 1e-9)   # (5, 2), (1005, 1002), equal?
""")

lesson.md(slide="subslide", ko="""
두 점수가 부동소수점 정밀도까지 같아요. 절대 위치는 사라지고 **상대 위치**만 남아요. 또 하나의 성질: 같은 벡터를 거리 m − n만큼 떨어뜨려 놓으면, 점수가 거리에 따라 (출렁이면서) **평균적으로 줄어들어요**. 멀리 있는 토큰끼리는 비슷한 벡터여도 점수가 덜 나와요. 64차원에서 거리 0~200의 평균 점수를 그려 봐요.
""", en="""
The two scores agree to floating-point precision: the absolute positions are gone, only the **relative position** is left. One more property: place the same vector m − n positions apart, and the score **falls on average** with the distance (with ripples). Far-apart tokens score less even when their vectors are alike. Here is the average score for distances 0 to 200 at 64 dimensions.
""")

lesson.code(slide="subslide", source="""
distances = np.arange(0, 201)
decay = qk.positions.rope_score_by_distance(64, distances)     # (201,)
print(decay[[0, 10, 50, 200]])
ax = qk.plots.plot_rope_score_by_distance(distances, decay)""")

lesson.md(slide="slide", ko="""
## 돌려 보기

"cat"의 쿼리와 "sat"의 키(d_k = 4, 그러니까 차원 쌍이 두 개)를 위치 m과 n에 놓아요. 왼쪽 두 그림은 두 쌍이 회전하는 모습(흐린 화살표는 회전 전), 오른쪽은 거리 m − n마다의 점수와 지금의 점수(빨간 점)예요.

- m을 움직이면 파란 화살표가 돌아요. 첫 쌍은 빨리, 둘째 쌍은 거의 안 돌아요.
- m과 n을 **같은 만큼** 움직여 보세요. 화살표는 돌지만 빨간 점은 그대로예요.
""", en="""
## Turn it yourself

"cat"'s query and "sat"'s key (d_k = 4, so two pairs of dimensions) sit at positions m and n. The two left panels show the pairs turning (faint arrows: before turning); the right panel shows the score for every distance m − n, with the current one in red.

- Move m: the blue arrows turn, the first pair fast, the second hardly at all.
- Move m and n **by the same amount**: the arrows turn, the red dot stays.
""")

lesson.code(slide="subslide", source="qk.widgets.rope_explorer()", ignore_output=True)

lesson.md(slide="slide", ko="""
## RoPE는 어텐션 안에서 쓰여요

RoPE를 쓰는 모델에서 어텐션 한 번은 이래요. 회전한 쿼리와 키로 점수를 내고, 밸류는 그대로 가중합해요. 레이어마다, 헤드마다 같은 회전을 다시 적용해요. 임베딩 x 자체에는 위치가 들어 있지 않아요.

$$\\text{output} = \\text{softmax}\\!\\left(\\frac{\\text{RoPE}(Q)\\,\\text{RoPE}(K)^\\top}{\\sqrt{d_k}}\\right) V$$
""", en="""
## RoPE lives inside attention

In a model with RoPE, one attention step looks like this: scores from the rotated queries and keys, a weighted sum of the unrotated values. Every layer and every head applies the same rotation again; the embedding x itself carries no position.

$$\\text{output} = \\text{softmax}\\!\\left(\\frac{\\text{RoPE}(Q)\\,\\text{RoPE}(K)^\\top}{\\sqrt{d_k}}\\right) V$$
""")

lesson.code(ko="""
plain = qk.scaled_dot_product_attention(q, k, ex.v)
rope = qk.scaled_dot_product_attention(q_rot, k_rot, ex.v)     # 밸류는 회전하지 않아요
cat = ex.index("cat")
print(plain.weights[cat])                                      # 위치 없이
print(rope.weights[cat])                                       # RoPE
""", en="""
plain = qk.scaled_dot_product_attention(q, k, ex.v)
rope = qk.scaled_dot_product_attention(q_rot, k_rot, ex.v)     # values are not rotated
cat = ex.index("cat")
print(plain.weights[cat])                                      # no positions
print(rope.weights[cat])                                       # RoPE
""")

lesson.md(slide="subslide", ko="""
"cat"이 각 토큰에 주는 가중치가 바뀌었어요. 이제 점수에 "몇 칸 떨어져 있나"가 섞여 들어가요. 이 모델의 가중치 행렬 W_Q, W_K는 무작위라 어느 쪽이 "맞다"고 할 수는 없어요. 학습된 모델은 이 회전을 이용해 가까운 토큰이나 특정 거리의 토큰을 찾는 헤드를 만들어요.
""", en="""
The weights "cat" gives each token changed: the scores now mix in "how many positions apart". This model's weight matrices are random, so neither row is "right"; a trained model uses the rotation to build heads that look at nearby tokens or at tokens a given distance away.
""")

lesson.md(slide="slide", ko="""
## 직접 해보기 1: 회전한 점수 계산하기

"cat"의 쿼리를 **위치 7**에, "sat"의 키를 **위치 3**에 놓았을 때 RoPE 점수(회전한 쿼리와 회전한 키의 내적, 숫자 하나)를 계산해 `my_score`에 넣어 보세요. 쿼리는 `ex.q[ex.index("cat")]`, 키는 `ex.k[ex.index("sat")]`예요. `qk.apply_rope`에 위치를 주거나 `qk.positions.rope_rotation_matrix`를 써도 돼요.
""", en="""
## Try it 1: compute a rotated score

Put "cat"'s query at **position 7** and "sat"'s key at **position 3**, and compute the RoPE score (the dot product of the rotated query and the rotated key, one number) into `my_score`. The query is `ex.q[ex.index("cat")]`, the key `ex.k[ex.index("sat")]`. You may give `qk.apply_rope` the positions, or use `qk.positions.rope_rotation_matrix`.
""")

lesson.code(exercise=True, ko="""
my_score = ...   # "cat"의 쿼리(위치 7)와 "sat"의 키(위치 3)의 RoPE 점수
qk.checks.check_rope_score(my_score, ex, query_token="cat", query_position=7,
                           key_token="sat", key_position=3)
""", en="""
my_score = ...   # RoPE score of "cat"'s query (position 7) and "sat"'s key (position 3)
qk.checks.check_rope_score(my_score, ex, query_token="cat", query_position=7,
                           key_token="sat", key_position=3)
""")

lesson.code(solution=True, ko="""
q_cat = qk.apply_rope(ex.q[ex.index("cat")][None, :], [7])   # (1, 4): 위치 7만큼 회전
k_sat = qk.apply_rope(ex.k[ex.index("sat")][None, :], [3])   # (1, 4): 위치 3만큼 회전
my_score = (q_cat @ k_sat.T).item()
qk.checks.check_rope_score(my_score, ex, query_token="cat", query_position=7,
                           key_token="sat", key_position=3).as_solution()
""", en="""
q_cat = qk.apply_rope(ex.q[ex.index("cat")][None, :], [7])   # (1, 4): turned for position 7
k_sat = qk.apply_rope(ex.k[ex.index("sat")][None, :], [3])   # (1, 4): turned for position 3
my_score = (q_cat @ k_sat.T).item()
qk.checks.check_rope_score(my_score, ex, query_token="cat", query_position=7,
                           key_token="sat", key_position=3).as_solution()
""")

lesson.md(slide="slide", ko="""
## 직접 해보기 2: 계산하지 말고 예측하기

이번에는 계산하지 말고 생각만으로 답해요. "cat"의 쿼리를 **위치 1007**로 옮겼어요. "sat"의 키를 **어느 위치 n**에 두면 직접 해보기 1과 똑같은 점수가 나올까요? 정수 하나를 `my_n`에 넣어 보세요. 확인은 그다음에 코드로 해 봐도 좋아요.
""", en="""
## Try it 2: predict, don't compute

This time answer by thinking, not computing. "cat"'s query moves to **position 1007**. At **which position n** must "sat"'s key be for the score to equal the one in Try it 1? Put one integer into `my_n`; check it with code afterwards if you like.
""")

lesson.code(exercise=True, ko="""
my_n = ...   # "sat"의 키 위치 (정수 하나)
qk.checks.check_same_distance(my_n, query_position=7, key_position=3, new_query_position=1007)
""", en="""
my_n = ...   # the position of "sat"'s key (one integer)
qk.checks.check_same_distance(my_n, query_position=7, key_position=3, new_query_position=1007)
""")

lesson.code(solution=True, ko="""
my_n = 1007 - (7 - 3)   # 점수는 거리 m − n에만 달려 있어요: 7 − 3 = 1007 − n
qk.checks.check_same_distance(my_n, query_position=7, key_position=3,
                              new_query_position=1007).as_solution()
""", en="""
my_n = 1007 - (7 - 3)   # the score depends only on the distance m − n: 7 − 3 = 1007 − n
qk.checks.check_same_distance(my_n, query_position=7, key_position=3,
                              new_query_position=1007).as_solution()
""")

lesson.md(slide="slide", ko="""
## 정리

- 어텐션만으로는 순서를 몰라요. 인코더의 출력은 토큰을 따라 섞일 뿐이에요. 인과 마스크가 있는 디코더는 "누가 앞인가"는 알지만 위치와 거리는 몰라요.
- <b>사인파 위치 인코딩</b>은 공식으로 만든 벡터를 임베딩에 한 번 더해요. k칸 옮기기는 (sin, cos) 쌍마다의 고정된 회전이에요.
- <b>학습된 위치 벡터</b>도 임베딩에 더해요. 학습된 표에서 이웃 위치는 서로 비슷하지만, 표의 크기(여기서는 512)를 넘는 위치는 없어요.
- <b>RoPE</b>는 더하지 않아요. 모든 레이어에서 쿼리와 키를 위치만큼 회전시키고 밸류는 그대로 둬요. 그래서 점수가 상대 위치 m − n에만 달려 있고, 거리가 멀수록 평균적으로 작아져요.

다음 강에서는 긴 문장으로 넘어가요. 토큰이 수천 개가 되면 (n, n) 점수 행렬이 문제가 돼요.

[다음: 13. 큰 규모의 어텐션 →](13_attention_at_scale.ipynb)
""", en="""
## Key takeaways

- Attention alone does not know the order: the encoder's output just shuffles with the tokens. A decoder with a causal mask knows "who comes first", but not positions or distances.
- <b>Sinusoidal positions</b> add a vector made by a formula to the embedding, once. Moving k positions on is a fixed rotation of each (sin, cos) pair.
- <b>Learned positions</b> are added too. In a trained table neighbouring positions are alike, but there is no position beyond the table (512 here).
- <b>RoPE</b> adds nothing: in every layer it rotates queries and keys by their position and leaves values alone. So a score depends only on the relative position m − n, and on average it gets smaller with the distance.

The next lesson turns to long texts: with thousands of tokens, the (n, n) score matrix becomes the problem.

[Next: 13. Attention at scale →](13_attention_at_scale.ipynb)
""")
