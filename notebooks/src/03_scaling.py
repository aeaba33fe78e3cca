# Lesson 03's source: make notebooks LESSON=03 builds notebooks/{ko,en}/03_scaling.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 03. 스케일링: 왜 √d_k로 나눌까요?
#
# **이번 시간의 목표**
# - d_k가 커지면 내적 q·k의 분산이 d_k만큼 커진다는 걸 **직접 재 봐요**.
# - 스케일링 없이 점수가 커지면 소프트맥스가 한 토큰에 쏠리고(포화), 기울기가 대부분 사라지고 몇몇은 아주 커진다는 걸 확인해요.
# - √d_k로 나누면 분산이 1로 돌아온다는 걸 보고, 스케일링의 진짜 이유를 설명할 수 있어요.
#
# **수업 시간**: 약 35분

# %% [markdown] lang="en"
# # 03. Scaling: why divide by √d_k?
#
# **Goals for this lesson**
# - **Measure** that the variance of the dot product q·k grows with d_k, as d_k itself.
# - See that, without scaling, large scores make softmax pile onto one token (saturate): most gradients vanish and a few blow up.
# - See that dividing by √d_k brings the variance back to 1, and explain the real reason for scaling.
#
# **Class time**: about 35 minutes

# %% slide="skip"
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=3, suppress=True)
ex = qk.running_example()                 # "The cat sat on the mat."
cat = ex.index("cat")

# %% [markdown] lang="ko" slide="slide"
# ## 주장 대신 측정으로
#
# 참고한 글은 "내적 값이 너무 커지지 않도록 √d_k로 나눈다"고만 말하고 넘어가요. 왜 커지는지, 커지면 뭐가 문제인지는 보여 주지 않죠. 여기서는 하나씩 재 볼게요.
#
# 먼저 이유부터요. 원 논문은 이렇게 **가정**해요. 쿼리와 키의 성분이 서로 독립이고 평균 0, 분산 1이라면(무작위로 초기화한 선형 변환에서는 대략 그래요), 내적 $q \cdot k = q_1 k_1 + q_2 k_2 + \dots + q_{d_k} k_{d_k}$는 분산 1짜리 항을 **d_k개 더한 것**이라서 분산도 d_k가 돼요. 학습된 모델의 q, k가 꼭 이렇다는 뜻은 아니에요. 스케일링이 왜 필요한지 보여 주는 출발점이에요. 시드를 고정한 무작위 벡터 2만 쌍으로 재 보면, 왼쪽 열(스케일링 전 분산)이 d_k를 그대로 따라가요. √d_k로 나눈 오른쪽 열은 늘 1 근처예요.

# %% [markdown] lang="en"
# ## Measuring instead of asserting
#
# The article only says that we divide by √d_k "so that the dot products do not grow too large". It does not show why they grow, or what goes wrong when they do. We measure each step.
#
# The reason first, as the original paper argues it: **if** the components of a query and a key are independent, with mean 0 and variance 1 (roughly true of randomly initialised projections), then $q \cdot k = q_1 k_1 + q_2 k_2 + \dots + q_{d_k} k_{d_k}$ is a **sum of d_k terms** of variance 1, so its variance is d_k. That is an assumption, not a fact about trained models; it is the starting point for seeing why scaling helps. Measured on 20,000 seeded random pairs, the left column (variance before scaling) follows d_k; the right one (after dividing by √d_k) stays near 1.

# %%
for d_k in (1, 4, 16, 64, 256, 1024):
    raw, scaled = qk.score_scale.dot_product_variance(d_k)
    print(f"d_k = {d_k:5d}   var(q·k) = {raw:8.1f}   var(q·k/√d_k) = {scaled:5.2f}")

# %% slide="subslide"
d_ks = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
raw, scaled = zip(*[qk.score_scale.dot_product_variance(d_k) for d_k in d_ks])
ax = qk.plots.plot_variance_vs_dk(d_ks, raw, scaled)

# %% [markdown] lang="ko" slide="subslide"
# 분포로 보면 더 실감 나요. d_k = 256이면 스케일링 전 점수(파란색)는 대략 -40에서 40까지 퍼져요(표준편차 √256 = 16). √d_k로 나눈 점수(주황색)는 -3에서 3 사이에 모여요.

# %% [markdown] lang="en"
# The distribution makes it vivid. With d_k = 256, the raw scores (blue) spread from about -40 to 40 (standard deviation √256 = 16); divided by √d_k (orange) they stay between about -3 and 3.

# %%
ax = qk.plots.plot_score_histogram(256)

# %% [markdown] lang="ko" slide="slide"
# ## 잠깐, 소프트맥스 미리 보기
#
# 다음 강(04강)에서 자세히 다룰 **소프트맥스**를 여기서 짧게 먼저 봐요. 소프트맥스는 점수 한 행을 가중치로 바꿔요. 점수마다 exp를 취하고, 그 합으로 나눠요.
#
# $$\operatorname{softmax}(s)_i = \frac{e^{s_i}}{\sum_j e^{s_j}}$$
#
# 그래서 가중치는 모두 양수이고 합이 1이며, 점수가 클수록 가중치도 커요. 중요한 건 점수의 **차이**예요. [1, 2, 3]과 그 10배인 [10, 20, 30]은 순서가 같지만, 차이가 커진 쪽은 거의 모든 가중치가 가장 큰 점수 하나에 몰려요.

# %% [markdown] lang="en"
# ## A first look at softmax
#
# Lesson 04 studies **softmax** in detail; here is the short version we need now. Softmax turns one row of scores into weights: take exp of each score and divide by their sum.
#
# $$\operatorname{softmax}(s)_i = \frac{e^{s_i}}{\sum_j e^{s_j}}$$
#
# So the weights are positive, sum to 1, and a larger score gets a larger weight. What matters is the **differences** between scores: [1, 2, 3] and ten times it, [10, 20, 30], have the same order, but with the larger differences almost all the weight goes to the largest score.

# %%
print(qk.softmax([1.0, 2.0, 3.0]).round(3))      # ko: 합이 1, 큰 점수가 큰 가중치
                                                 # en: sums to 1, larger score, larger weight
print(qk.softmax([10.0, 20.0, 30.0]).round(3))   # ko: 차이가 10배: 한 점수에 몰려요
                                                 # en: ten times the differences: piles onto one

# %% [markdown] lang="ko" slide="slide"
# ## 점수가 크면 소프트맥스가 포화돼요
#
# 점수 차이가 크면 소프트맥스는 가장 큰 점수 하나에 거의 모든 가중치를 줘요. 이걸 **포화**라고 해요. 무작위 쿼리 200개가 무작위 키 8개를 볼 때, 가장 큰 가중치의 평균을 재 봐요. 스케일링이 없으면 d_k가 커질수록 1에 가까워지고(한 토큰만 봄), 스케일링하면 d_k와 상관없이 비슷한 수준을 유지해요.

# %% [markdown] lang="en"
# ## Large scores saturate softmax
#
# When the scores are far apart, softmax gives almost all the weight to the largest one: it **saturates**. Take 200 random queries, each looking at 8 random keys, and measure the average largest weight. Without scaling it approaches 1 as d_k grows (one token takes everything); with scaling it stays at about the same level for every d_k.

# %% lang="ko"
for d_k in (4, 16, 64, 256, 1024):
    s = qk.score_scale.dk_stats(d_k)
    print(f"d_k = {d_k:5d}   가장 큰 가중치: 스케일링 없이 {s.max_raw:.2f},",
          f"스케일링 후 {s.max_scaled:.2f}")

# %% lang="en"
for d_k in (4, 16, 64, 256, 1024):
    s = qk.score_scale.dk_stats(d_k)
    print(f"d_k = {d_k:5d}   largest weight: {s.max_raw:.2f} without scaling,",
          f"{s.max_scaled:.2f} with")

# %% [markdown] lang="ko" slide="slide"
# ## 포화되면 기울기가 사라져요
#
# 학습은 기울기(미분)를 따라 매개변수(가중치 행렬 W_Q, W_K, W_V 등)를 고쳐 가는 과정이에요. 소프트맥스 출력 p를 점수 s로 미분한 값(야코비안)은
#
# $$J = \operatorname{diag}(p) - p\,p^\top, \qquad J_{ij} = \frac{\partial p_i}{\partial s_j}$$
#
# 이에요. p가 고르게 퍼져 있으면 J의 값이 적당히 크지만, p가 [0, 0, 1]처럼 한쪽에 몰리면 J의 모든 값이 0에 가까워져요. 점수를 조금 바꿔도 출력이 거의 변하지 않으니, 학습 신호가 전해지지 않는 거예요.

# %% [markdown] lang="en"
# ## Saturated softmax has almost no gradient
#
# Training follows gradients (derivatives) to adjust the parameters (the weight matrices W_Q, W_K, W_V and the rest). The derivative of softmax's output p with respect to its scores s (its Jacobian) is
#
# $$J = \operatorname{diag}(p) - p\,p^\top, \qquad J_{ij} = \frac{\partial p_i}{\partial s_j}$$
#
# When p is spread out, J has sizeable entries; when p piles up like [0, 0, 1], every entry of J is close to 0. Nudging the scores barely changes the output, so almost no learning signal gets through.

# %%
print(qk.score_scale.softmax_jacobian(qk.softmax([0.0, 0.0, 0.0])))   # ko: 고른 점수
                                                                      # en: even scores
saturated = qk.score_scale.softmax_jacobian(qk.softmax([0.0, 0.0, 20.0]))  # ko: 한쪽으로 쏠린 점수
                                                                           # en: scores far apart
print(f"{np.abs(saturated).max():.1e}")                                 # ko: 가장 큰 값도 거의 0
                                                                        # en: even its largest entry ~ 0

# %% [markdown] lang="ko" slide="subslide"
# 같은 무작위 쿼리와 키로 기울기의 크기(야코비안의 노름)를 재 봐요. 스케일링 없이는 d_k가 커질수록 0으로 줄어들고, 스케일링하면 d_k와 상관없이 거의 일정해요.

# %% [markdown] lang="en"
# Now the size of the gradient (the Jacobian's norm) for the same random queries and keys. Without scaling it shrinks towards 0 as d_k grows; with scaling it stays almost constant whatever d_k is.

# %% lang="ko"
for d_k in (4, 16, 64, 256, 1024):
    s = qk.score_scale.dk_stats(d_k)
    print(f"d_k = {d_k:5d}   기울기 크기: 스케일링 없이 {s.grad_raw:.3f},",
          f"스케일링 후 {s.grad_scaled:.3f}")

# %% lang="en"
for d_k in (4, 16, 64, 256, 1024):
    s = qk.score_scale.dk_stats(d_k)
    print(f"d_k = {d_k:5d}   gradient size: {s.grad_raw:.3f} without scaling,",
          f"{s.grad_scaled:.3f} with")

# %% [markdown] lang="ko" slide="subslide"
# 그런데 학습 신호가 실제로 닿는 곳은 점수가 아니라 쿼리와 키(그리고 그걸 만드는 W_Q, W_K)예요. 연쇄 법칙으로 쿼리 q에 대한 기울기는 ∂p/∂q = J·K·c(c는 스케일링 전 1, 후 1/√d_k)이고, 키 벡터의 길이는 약 √d_k예요. 그래서 스케일링 없는 기울기는 **고르게 작아지는 게 아니에요**. d_k = 1024에서 쿼리 2000개마다 잰 크기 ‖∂p/∂q‖를 보면, 대부분은 소프트맥스가 포화돼 거의 0이지만, 1등과 2등 점수가 비슷한 몇몇 쿼리는 기울기가 아주 커요. 중앙값은 0에 가깝고 평균은 스케일링한 쪽보다 커요. 스케일링하면 모든 쿼리가 비슷한 크기의 기울기를 받아요.

# %% [markdown] lang="en"
# But the learning signal has to reach the queries and keys (and the W_Q, W_K that make them), not the scores. By the chain rule the gradient with respect to a query is ∂p/∂q = J·K·c (c = 1 unscaled, 1/√d_k scaled), and a key vector's length is about √d_k. So the unscaled gradient is **not uniformly small**. Measure ‖∂p/∂q‖ for 2000 queries at d_k = 1024: for most of them softmax has saturated and it is almost 0, but for the few whose two best scores are close it is very large. The median is near 0 while the mean is larger than the scaled one. Scaled, every query gets a gradient of about the same size.

# %% lang="ko"
g = qk.score_scale.query_gradient_spread(1024)
for name, sizes in (("스케일링 없이", g.raw), ("스케일링 후", g.scaled)):
    print(f"{name:>8}: 중앙값 {np.median(sizes):.2g}, 평균 {np.mean(sizes):.2f},",
          f"최댓값 {np.max(sizes):.2f}, 0.01보다 작은 비율 {np.mean(sizes < 0.01):.0%}")

# %% lang="en"
g = qk.score_scale.query_gradient_spread(1024)
for name, sizes in (("without scaling", g.raw), ("scaled", g.scaled)):
    print(f"{name:>16}: median {np.median(sizes):.2g}, mean {np.mean(sizes):.2f},",
          f"largest {np.max(sizes):.2f}, share below 0.01: {np.mean(sizes < 0.01):.0%}")

# %% [markdown] lang="ko" slide="slide"
# ## 스케일링은 속도 때문이 아니에요
#
# √d_k로 나누는 건 계산을 빠르게 하려는 게 아니에요. 오히려 나눗셈이 한 번 더 들어가요. 스케일링이 바꾸는 건 **소프트맥스에 들어가는 점수의 폭**뿐이에요. 모든 점수를 같은 양수로 나누니 순서(어느 키가 1등인지)는 그대로고, 가중치가 얼마나 뾰족한지만 달라져요.
#
# d_k = 4인 예제 문장에서도 차이가 보여요. "cat"의 가중치에서 1등은 두 경우 모두 "sat"이지만, 스케일링 없이는 "sat"이 0.74를 가져가고, 스케일링하면 0.47이에요.

# %% [markdown] lang="en"
# ## Scaling is not about speed
#
# Dividing by √d_k does not make anything faster: it adds a division. What it changes is only **the range of the scores going into softmax**. Dividing every score by the same positive number keeps their order (which key ranks first), and changes only how peaked the weights are.
#
# Even the example sentence, with d_k = 4, shows it. In "cat"'s weights, "sat" ranks first either way, but it takes 0.74 without scaling and 0.47 with it.

# %%
scores = ex.q @ ex.k.T
print(qk.softmax(scores[cat]).round(2))                     # ko: 스케일링 없이
                                                            # en: no scaling
print(qk.softmax(scores[cat] / np.sqrt(ex.d_k)).round(2))   # ÷ √d_k = 2
print((scores.argsort(axis=1) == (scores / 2).argsort(axis=1)).all())  # ko: 순서는 그대로
                                                                       # en: same order

# %% [markdown] lang="ko" slide="slide"
# ## 위젯: d_k를 키워 보세요
#
# 슬라이더로 d_k를 1에서 512까지 바꿔 보세요. 왼쪽은 무작위 q, k 4000쌍의 점수 분포(파란색: 스케일링 전, 주황색: 후), 오른쪽은 쿼리 하나가 키 8개에 주는 가중치예요. 아래 설명에는 쿼리 200개에 대한 평균이 나와요.
#
# **해 볼 것**
# - d_k = 1에서 시작해 한 칸씩 올려 보세요. 파란 분포가 점점 넓게 퍼지는데 주황 분포는 그대로예요.
# - 오른쪽에서 파란 막대(스케일링 없이)가 언제부터 하나만 남는지 보세요.
#
# **눈여겨볼 것**: d_k가 커질수록 스케일링 없는 "가장 큰 가중치"는 1로, 평균 "기울기 크기"(야코비안의 노름)는 0으로 가요. 스케일링한 값들은 거의 변하지 않아요. 이게 √d_k로 나누는 이유예요.

# %% [markdown] lang="en"
# ## Widget: grow d_k
#
# Move the slider from d_k = 1 to 512. The left plot is the distribution of 4000 random q·k scores (blue: before scaling, orange: after); the right one is one query's weights over 8 keys. The caption gives averages over 200 queries.
#
# **Try this**
# - Start at d_k = 1 and go up one step at a time. The blue distribution spreads wider and wider; the orange one stays put.
# - On the right, watch when the blue bars (no scaling) collapse to a single bar.
#
# **Notice**: as d_k grows, the unscaled "largest weight" goes to 1 and the average "gradient size" (the Jacobian's norm) to 0; the scaled ones hardly move. That is why we divide by √d_k.

# %% slide="subslide"
qk.widgets.scaling_explorer()

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 먼저 예측하고, 재 보기
#
# 이번에는 계산하기 전에 예측해요. 어떤 모델의 헤드 차원이 **d_k = 96**이고, 쿼리와 키의 성분이 서로 독립이고 평균 0, 분산 1이라고 해요. 스케일링하기 **전** 점수 q·k의 **표준편차**는 얼마일까요? 위에서 잰 분산과 d_k의 관계를 떠올려, 숫자나 식으로 `my_std`에 적어 보세요. 검사 함수는 맞았을 때 무작위 2만 쌍으로 직접 잰 값도 보여 줘요.

# %% [markdown] lang="en"
# ## Try it: predict, then measure
#
# This time, predict before computing. A model's heads have width **d_k = 96**, and the components of queries and keys are independent with mean 0 and variance 1. What is the **standard deviation** of the score q·k **before** scaling? Use the relation between the variance and d_k measured above, and write a number or an expression in `my_std`. When you are right, the check also shows the value measured on 20,000 random pairs.

# %% exercise=true
my_std = ...   # ko: d_k = 96일 때, 스케일링 전 q·k의 표준편차
               # en: the standard deviation of q·k before scaling, for d_k = 96
qk.checks.check_score_spread(my_std, d_k=96)

# %% solution=true
my_std = np.sqrt(96)   # ko: 분산이 d_k = 96이니, 표준편차는 √96 ≈ 9.8
                       # en: the variance is d_k = 96, so the standard deviation is √96 ≈ 9.8
qk.checks.check_score_spread(my_std, d_k=96).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - q, k의 성분이 독립이고 평균 0, 분산 1이라면 내적의 분산은 d_k예요. 무작위 벡터로 재 보면 정말 그래요.
# - 스케일링 없이 점수가 커지면 소프트맥스가 한 토큰에 쏠리고(포화), 야코비안 diag(p) − p pᵀ가 0에 가까워져요. 쿼리에 닿는 기울기는 대부분 사라지고, 몇몇은 아주 커져요. 어느 쪽이든 학습이 불안정해요.
# - √d_k로 나누면 분산이 1로 돌아와서, d_k가 얼마든 소프트맥스가 학습 가능한 범위에 머물러요.
# - 스케일링은 속도를 위한 게 아니에요. 순서는 그대로 두고 가중치의 뾰족함만 바꿔서 학습을 안정시켜요.
#
# 다음 시간에는 점수를 확률로 바꾸는 소프트맥스 자체를 들여다보고, `exp`가 넘치는 문제도 고쳐 봐요.
#
# [다음: 04. 소프트맥스 →](04_softmax.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - If the components of q and k are independent with mean 0 and variance 1, their dot product has variance d_k, and measurement on random vectors agrees.
# - Unscaled, large scores make softmax pile onto one token (saturate) and its Jacobian diag(p) − p pᵀ goes to 0: the gradient reaching most queries vanishes while a few get very large ones. Either way, training is unstable.
# - Dividing by √d_k brings the variance back to 1, so softmax stays in a trainable range whatever d_k is.
# - Scaling is not for speed: it keeps the order of the scores and changes only how peaked the weights are, which keeps training stable.
#
# Next: softmax itself, turning scores into probabilities, and fixing the overflow of `exp`.
#
# [Next: 04. Softmax →](04_softmax.ipynb)
