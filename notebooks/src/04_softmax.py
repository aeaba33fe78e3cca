# Lesson 04's source: make notebooks LESSON=04 builds notebooks/{ko,en}/04_softmax.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 04. 소프트맥스: 점수를 확률로
#
# **이번 시간의 목표**
# - 소프트맥스가 유사도 점수를 어텐션 가중치(0 이상, 합 1)로 바꾸는 과정을 따라가요.
# - **온도** T가 가중치를 뾰족하게, 또는 평평하게 만든다는 걸 슬라이더로 확인해요.
# - 교과서 그대로의 `exp`가 큰 점수에서 넘쳐(overflow) NaN이 되는 걸 보고, 최댓값을 빼는 방법으로 고쳐요. `exp(x)`는 e^x예요(e ≈ 2.718). x가 1 커질 때마다 e배가 되는 함수예요. NaN(Not a Number)은 계산 결과가 숫자가 아니게 되었다는 표시예요.
#
# **수업 시간**: 약 40분

# %% [markdown] lang="en"
# # 04. Softmax: from scores to probabilities
#
# **Goals for this lesson**
# - Follow how softmax turns similarity scores into attention weights (never negative, summing to 1).
# - See with a slider how the **temperature** T makes the weights peaked or flat.
# - Watch the textbook `exp` overflow into NaN on large scores, and fix it by subtracting the maximum. (`exp(x)` is e^x, with e ≈ 2.718; NaN, "not a number", marks a result that is no longer a number.)
#
# **Class time**: about 40 minutes

# %% slide="skip"
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=3, suppress=True)
ex = qk.running_example()                 # "The cat sat on the mat."
s = qk.similarity.query_scores(ex.q, ex.k, ex.index("cat")).scaled   # ko: "cat"의 스케일링된 점수
                                                                     # en: "cat"'s scaled scores

# %% [markdown] lang="ko" slide="slide"
# ## 점수를 확률로 바꾸기
#
# "cat"의 스케일링된 점수는 음수도 있고, 합도 제각각이에요. 소프트맥스는 각 점수에 `exp`를 씌워 모두 양수로 만든 뒤, 전체 합으로 나눠요.
#
# $$\operatorname{softmax}(s)_i = \frac{e^{s_i}}{\sum_j e^{s_j}}$$
#
# 그래서 결과는 **모두 0보다 크고, 합이 1**이에요. 그리고 `exp`는 커지기만 하는 함수라서 **점수의 순서가 그대로** 유지돼요.

# %% [markdown] lang="en"
# ## Turning scores into probabilities
#
# "cat"'s scaled scores include negative numbers and add up to nothing in particular. Softmax applies `exp` to each score, making it positive, then divides by the total:
#
# $$\operatorname{softmax}(s)_i = \frac{e^{s_i}}{\sum_j e^{s_j}}$$
#
# So the results are **all above 0 and sum to 1**, and since `exp` only ever increases, **the order of the scores is kept**.

# %%
w = qk.softmax(s)
print(s.round(2))
print(w.round(3))
print(bool((w > 0).all()), round(float(w.sum()), 6), bool((s.argsort() == w.argsort()).all()))

# %% [markdown] lang="ko" slide="subslide"
# 소프트맥스가 보는 건 점수의 **차이**뿐이에요. 모든 점수에 같은 수를 더해도 결과는 그대로예요. 분자와 분모에 똑같이 e^c가 곱해졌다가 약분되기 때문이죠. 이 성질이 뒤에서 `exp` 넘침을 고치는 열쇠가 돼요.

# %% [markdown] lang="en"
# Softmax only sees **differences** between scores: add the same number to every score and nothing changes, because e^c multiplies the numerator and the denominator alike and cancels. This property is the key to fixing the overflow of `exp` below.

# %%
print(np.allclose(qk.softmax(s), qk.softmax(s + 100.0)),
      np.allclose(qk.softmax(s), qk.softmax(s - 7.0)))

# %% [markdown] lang="ko" slide="slide"
# ## 온도 T
#
# 점수를 온도 T로 나눈 뒤 소프트맥스를 하면, 가중치가 얼마나 뾰족한지를 조절할 수 있어요: softmax(s / T).
#
# - T가 작으면(T → 0) 점수 차이가 커져서 가장 큰 점수 하나가 거의 전부를 가져가요.
# - T가 크면(T → ∞) 점수 차이가 작아져서 모든 가중치가 1/n에 가까워져요.
# - T = 1이면 보통의 소프트맥스예요.
#
# 점수가 두 개일 때 첫 번째 토큰의 가중치를 점수 차이에 대해 그려 보면, T가 작을수록 계단처럼, 클수록 완만해져요. 03강의 √d_k 스케일링도 사실 T = √d_k인 온도와 같은 효과예요.

# %% [markdown] lang="en"
# ## Temperature T
#
# Dividing the scores by a temperature T before softmax controls how peaked the weights are: softmax(s / T).
#
# - Small T (T → 0) stretches the differences: the largest score takes almost everything.
# - Large T (T → ∞) shrinks them: every weight approaches 1/n.
# - T = 1 is plain softmax.
#
# With two scores, the first token's weight plotted against the score difference is a step for small T and a gentle slope for large T. The √d_k of lesson 03 acts exactly like a temperature T = √d_k.

# %% slide="subslide"
ax = qk.plots.plot_softmax_curves((0.25, 1.0, 4.0))

# %%
for temperature in (0.1, 0.5, 1.0, 2.0, 10.0):
    print(f"T = {temperature:4}", qk.softmax(s, temperature=temperature).round(2))

# %% [markdown] lang="ko" slide="slide"
# ## 위젯: 온도를 바꿔 보세요
#
# 슬라이더로 온도 T를 0.1에서 10까지 바꿔 보세요. 왼쪽은 "cat"의 가중치, 오른쪽은 점수 두 개짜리 소프트맥스 곡선이에요(검은 굵은 선이 지금 온도, 점선이 T = 1).
#
# **해 볼 것**
# - T를 0.1 근처로 내려 보세요. "sat"이 거의 1을 가져가요.
# - T를 10으로 올려 보세요. 막대들이 모두 1/7 ≈ 0.14 근처로 모여요.
#
# **눈여겨볼 것**: 어떤 T에서도 1등은 "sat"이에요. 온도는 순서는 건드리지 않고, 1등이 얼마나 독차지하는지만 바꿔요.

# %% [markdown] lang="en"
# ## Widget: change the temperature
#
# Move the temperature T between 0.1 and 10. On the left, "cat"'s weights; on the right, the softmax curve of two scores (thick black: the current T, dashed: T = 1).
#
# **Try this**
# - Lower T to about 0.1: "sat" takes almost 1.
# - Raise T to 10: the bars gather around 1/7 ≈ 0.14.
#
# **Notice**: "sat" ranks first at every T. The temperature never changes the order, only how much the winner takes.

# %% slide="subslide"
qk.widgets.temperature_explorer()

# %% [markdown] lang="ko" slide="slide"
# ## `exp`는 넘칠 수 있어요
#
# 컴퓨터의 실수(float64)가 담을 수 있는 가장 큰 수는 약 1.8 × 10³⁰⁸이에요. 그래서 `exp(x)`는 x가 약 709.78을 넘으면 무한대(`inf`)가 돼요. float32라면 고작 88.72에서 넘쳐요. 스케일링하지 않은 큰 모델의 점수라면 충분히 닿을 수 있는 크기예요.

# %% [markdown] lang="en"
# ## `exp` can overflow
#
# The largest float64 is about 1.8 × 10³⁰⁸, so `exp(x)` becomes infinity (`inf`) once x passes about 709.78; in float32, at just 88.72. Unscaled scores in a large model can get there.

# %%
limits = qk.float_limits.exp_limit(np.float64), qk.float_limits.exp_limit(np.float32)
print(round(limits[0], 2), round(limits[1], 2))
with np.errstate(over="ignore"):                 # ko: 넘침 경고를 끄고 결과만 봐요
                                                 # en: silence the overflow warning, show the result
    print(np.exp(np.array([709.0, 710.0])))

# %% [markdown] lang="ko" slide="subslide"
# GPU에서 큰 모델을 돌릴 때 흔히 쓰는 반정밀도(float16)는 담을 수 있는 범위가 훨씬 좁아요. 가장 큰 수가 65504라서 `exp`는 x가 **11.09**만 넘어도 넘쳐요. 03강에서 본 d_k = 256의 스케일링 전 점수는 ±40까지 퍼졌고, 스케일링한 점수도 학습된 모델에서는 작게 머문다는 보장이 없어요. 그래서 최댓값 빼기는 이론상의 안전장치가 아니라 실제로 꼭 필요해요. 점수 [2, 7, 12]를 float16으로 넣어 보면, 식 그대로의 소프트맥스는 NaN을 내고 `qk.softmax`는 float16 그대로 제대로 계산해요.

# %% [markdown] lang="en"
# Half precision (float16), common when running large models on GPUs, is far tighter: its largest number is 65504, so `exp` overflows once x passes just **11.09**. Lesson 03's unscaled scores at d_k = 256 spread to ±40, and nothing guarantees that a trained model's scaled scores stay small, so subtracting the maximum is not a theoretical safeguard: it matters in practice. Feed the scores [2, 7, 12] in float16: softmax written from the formula gives NaN, while `qk.softmax` computes them correctly, still in float16.

# %%
print(round(qk.float_limits.exp_limit(np.float16), 2))     # ko: float16에서 exp가 넘치는 곳
                                                           # en: where exp overflows in float16
half = np.array([2.0, 7.0, 12.0], dtype=np.float16)
print(qk.float_limits.naive_softmax(half))                 # ko: 식 그대로: exp(12) = inf → NaN
                                                           # en: from the formula: exp(12) = inf → NaN
print(qk.softmax(half), qk.softmax(half).dtype)            # ko: 최댓값을 빼면: 문제없음
                                                           # en: maximum subtracted: fine

# %% [markdown] lang="ko" slide="subslide"
# 식 그대로 만든 소프트맥스에 점수 [1000, 1001, 1002]를 넣으면, 분자도 분모도 `inf`가 되고 inf / inf는 NaN이에요. 가중치가 통째로 망가져요.

# %% [markdown] lang="en"
# Feed the scores [1000, 1001, 1002] to softmax written straight from the formula: numerator and denominator are both `inf`, and inf / inf is NaN. The weights are ruined.

# %%
print(qk.float_limits.naive_softmax([1.0, 2.0, 3.0]))
print(qk.float_limits.naive_softmax([1000.0, 1001.0, 1002.0]))

# %% [markdown] lang="ko" slide="slide"
# ## 고치는 법: 최댓값 빼기
#
# 위에서 본 성질, "모든 점수에서 같은 수를 빼도 결과가 같다"를 쓰면 돼요. `exp`를 하기 전에 **각 행의 최댓값을 빼요**.
#
# - 빼고 나면 모든 값이 0 이하이고, 가장 큰 값은 정확히 0이에요.
# - 그러니 `exp`의 결과는 모두 0과 1 사이이고, 가장 큰 것은 exp(0) = 1이에요. 넘칠 수가 없어요.
# - 분모는 1 이상이라 0으로 나눌 일도 없어요.
#
# [1000, 1001, 1002]는 [-2, -1, 0]이 되고, 결과는 [1, 2, 3]의 소프트맥스와 똑같아요. `qk.softmax`도 안에서 이렇게 계산해요.

# %% [markdown] lang="en"
# ## The fix: subtract the maximum
#
# Use the property from above, "subtracting the same number from every score changes nothing": **subtract each row's maximum before `exp`**.
#
# - Afterwards every value is ≤ 0, and the largest is exactly 0.
# - So every `exp` lies between 0 and 1, the largest being exp(0) = 1: nothing can overflow.
# - The denominator is at least 1, so there is no division by zero either.
#
# [1000, 1001, 1002] becomes [-2, -1, 0], and the result equals the softmax of [1, 2, 3]. `qk.softmax` computes it this way inside.

# %%
steps = qk.float_limits.max_subtraction_steps([1000.0, 1001.0, 1002.0])
print(steps.shifted, steps.exps, steps.weights)
print(qk.softmax([1000.0, 1001.0, 1002.0]), qk.softmax([1.0, 2.0, 3.0]))

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 안정적인 소프트맥스
#
# 넘치지 않는 소프트맥스 함수 `my_softmax(x)`를 `np.exp`로 직접 써 보세요(`qk.softmax`를 부르면 안 돼요). `x`는 2차원 배열이고, 마지막 축(각 행)을 따라 합이 1이 되어야 해요. `x.max(axis=-1, keepdims=True)`, `np.exp`, `.sum(axis=-1, keepdims=True)`가 도움이 돼요.
#
# 검사 함수는 작은 점수, [1000, 1001, 1002], 그리고 **행마다 크기가 아주 다른 점수**로 시험해요. 배열 전체의 최댓값, 행의 최솟값, 행의 평균을 빼는 방법은 이 중 어딘가에서 넘치거나 NaN이 돼요. 어떤 입력에서 틀렸는지 알려 줄 거예요.
#
# (조금 더) 같은 요령으로 `my_log_softmax(x)`, 곧 log(softmax(x))를 써 보세요. `np.log(qk.softmax(x))`는 [0, −1000, −2]에서 −∞가 나와요. 소프트맥스가 0으로 사라진 다음에 로그를 하니까요. 최댓값을 뺀 값 s에서 바로 s − log Σ exp(s)를 계산하면 돼요.

# %% [markdown] lang="en"
# ## Try it: a stable softmax
#
# Write a softmax `my_softmax(x)` that does not overflow, yourself, with `np.exp` (calling `qk.softmax` does not count). `x` is a 2-D array, and each row (the last axis) must sum to 1. `x.max(axis=-1, keepdims=True)`, `np.exp` and `.sum(axis=-1, keepdims=True)` help.
#
# The check tries your function on small scores, on [1000, 1001, 1002], and on **rows of very different sizes**. Subtracting the maximum of the whole array, the row's minimum or the row's mean overflows or gives NaN on one of them; the check says which input broke it.
#
# (A step further) With the same trick, write `my_log_softmax(x)`, that is log(softmax(x)). `np.log(qk.softmax(x))` gives −∞ on [0, −1000, −2]: the softmax underflows to 0 before the log. From the shifted scores s, compute s − log Σ exp(s) directly.

# %% exercise=true
def my_softmax(x):
    return ...   # ko: 여기에 답을 적어요: 최댓값 빼기 → exp → 합으로 나누기
                 # en: your answer: subtract the max → exp → divide by the sum
qk.checks.check_stable_softmax(my_softmax)

# %% solution=true
def my_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))   # ko: 행마다 가장 큰 값이 exp(0) = 1
                                                    # en: each row's largest becomes exp(0) = 1
    return e / e.sum(axis=-1, keepdims=True)
qk.checks.check_stable_softmax(my_softmax).as_solution()

# %% exercise=true
def my_log_softmax(x):
    return ...   # ko: log(softmax(x)), 0으로 사라지지 않게
                 # en: log(softmax(x)), without underflowing to 0
qk.checks.check_stable_log_softmax(my_log_softmax)

# %% solution=true
def my_log_softmax(x):
    s = x - x.max(axis=-1, keepdims=True)                 # ko: 행마다 가장 큰 값이 0
                                                          # en: each row's largest is 0
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))   # ko: 합은 1 이상이라 log가 안전해요
                                                               # en: the sum is ≥ 1, so log is safe
qk.checks.check_stable_log_softmax(my_log_softmax).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 소프트맥스는 점수에 `exp`를 씌우고 합으로 나눠요. 결과는 모두 양수, 합은 1, 순서는 그대로예요.
# - 소프트맥스는 점수의 차이만 봐요. 모든 점수에 같은 수를 더하거나 빼도 결과가 같아요.
# - 온도 T: 작으면 뾰족하게(한 토큰이 독차지), 크면 평평하게(모두 1/n 근처). √d_k 스케일링도 일종의 온도예요.
# - 식 그대로의 `exp`는 x > 709.78(float64), 88.72(float32), 고작 11.09(float16)에서 넘쳐 NaN을 만들어요. exp 전에 최댓값을 빼면 절대 넘치지 않아요.
#
# 이제 가중치가 생겼어요. 다음 시간에는 이 가중치로 밸류를 섞어 문맥 벡터를 만들어요.
#
# [다음: 05. 가중합과 문맥 벡터 →](05_weighted_sum.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - Softmax applies `exp` to the scores and divides by the total: all positive, summing to 1, order kept.
# - Softmax only sees differences: adding or subtracting the same number from every score changes nothing.
# - Temperature T: small makes the weights peaked (one token takes all), large makes them flat (all near 1/n). √d_k scaling is a temperature too.
# - The textbook `exp` overflows for x > 709.78 (float64), 88.72 (float32), just 11.09 (float16), and gives NaN; subtracting the maximum before `exp` never overflows.
#
# Now we have weights. Next lesson uses them to mix the values into contextual vectors.
#
# [Next: 05. The weighted sum and contextual vectors →](05_weighted_sum.ipynb)
