# Lesson 13's source: make notebooks LESSON=13 builds notebooks/{ko,en}/13_attention_at_scale.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 13. 큰 규모의 어텐션: 타일, GQA, 슬라이딩 윈도, 페이지 캐시
#
# 12강까지는 토큰 몇 개짜리 문장으로 어텐션이 **무엇을** 계산하는지 봤어요. 실제 모델은 토큰 수천 개짜리 요청을 수백 개씩 한꺼번에 처리해요. 이번 시간에는 그 규모에서 어텐션이 **얼마나** 드는지 재 보고, 비용을 줄이는 방법 네 가지(타일, KV 헤드 나눠 쓰기, 윈도, 페이지 메모리)를 `qkv_helpers`로 직접 만들어요. 타일 어텐션과 페이지 캐시는 일반 어텐션과 같은 답을 내요. GQA와 슬라이딩 윈도는 **다른 모델**이라서, 일반 어텐션과 똑같아지는 경우(KV 헤드가 쿼리 헤드만큼 있을 때, 윈도가 문장 전체를 덮을 때)에만 같은 답을 내요. 마지막으로 디코드가 왜 메모리에 묶이는지, 배치가 왜 도움이 되는지 봐요.
#
# **이번 시간의 목표**
# - 일반 어텐션의 시간과 메모리가 토큰 수의 제곱으로 늘어난다는 걸 재 보고, 범인이 (n, n) 점수 행렬이라는 걸 확인해요.
# - **온라인 소프트맥스**로 키를 블록 단위로 읽는 **타일 어텐션**을 이해해요. 일반 어텐션과 같은 답을 내면서 n = 4096에서 최대 메모리가 약 31분의 1로 줄어드는 걸 재 봐요. 순전파의 FLOPs(부동소수점 연산 수)는 그대로예요.
# - **MQA/GQA**: 쿼리 헤드 여러 개가 KV 헤드 하나를 나눠 쓰면 KV 캐시가 그룹 크기분의 1로 줄어요.
# - **슬라이딩 윈도**: 최근 토큰만 보면 캐시 크기에 상한이 생겨요. 레이어를 쌓으면 이론상 더 멀리 닿을 수 있어요.
# - **페이지 KV 캐시**(vLLM의 PagedAttention, 줄여서 페이지 캐시): vLLM 이전의 서버처럼 요청마다 최대 길이를 잡아 두면 생기는 낭비를 재 봐요.
# - **프리필과 디코드**: Llama-2-7B 크기에서 산술 강도를 계산하고, 디코드가 메모리 대역폭(1초에 메모리에서 읽어 올 수 있는 바이트 수)에 묶이는 이유를 알아봐요.
#
# **수업 시간**: 약 85분
#
# 한 차시에 다 하기 어려우면 1–2절(제곱 비용, 타일 어텐션)과 3–6절, 두 차시로 나눠요.

# %% [markdown] lang="en"
# # 13. Attention at scale: tiles, GQA, sliding windows, a paged cache
#
# Up to lesson 12 we looked at **what** attention computes, on sentences of a few tokens. Real models process thousands of tokens and hundreds of requests at once. This lesson measures **how much** attention costs at that scale, and builds four ways to cut the cost with `qkv_helpers` (tiles, shared K/V heads, windows, paged memory). Tiled attention and the paged cache give the same answer as plain attention; GQA and sliding windows are **different models**, equal to plain attention only where they reduce to it (as many K/V heads as query heads, a window covering the whole text). Last, it shows why decoding is bound by memory and why batching helps.
#
# **Goals for this lesson**
# - Measure that plain attention's time and memory grow with the square of the number of tokens, and that the (n, n) score matrix is the culprit.
# - Understand **tiled attention**, which reads the keys block by block with the **online softmax**. Check that it gives the same answer, with peak memory about 31× smaller at n = 4096, and the same forward FLOPs.
# - **MQA/GQA**: when several query heads share one K/V head, the KV cache shrinks to 1/(group size).
# - **Sliding windows**: attending to recent tokens only puts a ceiling on the cache; stacked layers can in theory reach further.
# - **A paged KV cache** (vLLM's PagedAttention): measure what reserving the maximum length per request, as servers did before vLLM, wastes.
# - **Prefill and decode**: compute the arithmetic intensity at Llama-2-7B's sizes and see why decoding is limited by memory bandwidth.
#
# **Class time**: about 85 minutes
#
# For shorter class periods, split it in two: sections 1–2 (the quadratic cost, tiled attention) and sections 3–6.

# %% slide="skip"
import numpy as np
import qkv_helpers as qk
from qkv_helpers.measure import long_context

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=3, suppress=True)

# %% [markdown] lang="ko" slide="slide"
# ## 1. 제곱으로 늘어나는 비용
#
# 토큰이 n개면 점수 Q·Kᵀ는 (n, n) 행렬이에요. 토큰 수가 두 배가 되면 이 행렬은 네 배가 돼요. 헤드 하나(d = 64, float32)로 n = 256부터 4096까지 일반 어텐션(`qk.scaled_dot_product_attention`)을 돌려서 **최대 메모리**와 시간을 재요. 최대 메모리는 계산하는 동안 새로 잡은 바이트의 최댓값이고, `tracemalloc`으로 재요. 같은 입력으로 2절의 타일 어텐션도 함께 재 둬요.

# %% [markdown] lang="en"
# ## 1. A cost that grows with the square
#
# With n tokens the scores Q·Kᵀ form an (n, n) matrix: twice the tokens, four times the matrix. Run plain attention (`qk.scaled_dot_product_attention`) on one head (d = 64, float32) for n = 256 up to 4096 and measure its **peak memory** (the most bytes newly allocated during the call, measured with `tracemalloc`) and its time. Tiled attention, section 2's subject, is measured on the same inputs alongside.

# %%
lengths = [256, 512, 1024, 2048, 4096]
# en: plain and tiled attention: peak memory and time
costs = long_context.measure_costs(lengths)         # ko: 일반 어텐션과 타일 어텐션: 최대 메모리와 시간
mib = 2**20
for n, scores, plain in zip(lengths, costs.score_bytes, costs.plain_peak):
    # ko: n, (n, n) 점수 행렬, 일반 어텐션의 최대 메모리
    # en: n, the (n, n) score matrix, plain attention's peak
    print(f"n = {n:4d}   {scores / mib:5.1f} MiB   {plain / mib:5.1f} MiB")

# %% [markdown] lang="ko" slide="subslide"
# 최대 메모리는 거의 점수 행렬 크기 그대로예요. float32 값 하나는 4바이트라서, n = 4096이면 행렬 하나가 4096 × 4096 × 4바이트 = 64 MiB예요(1 MiB = 2²⁰바이트, 약 105만 바이트). 이런 행렬이 헤드마다, 배치의 시퀀스마다 하나씩 있어요. 추론에서는 레이어를 차례로 계산하면서 앞 레이어의 점수 행렬을 버리니 레이어 수는 곱하지 않아요. 학습에서는 역전파에 쓰려고 모든 레이어의 것을 들고 있어서 레이어 수까지 곱해요.
#
# 로그-로그 그래프는 두 축을 모두 로그 눈금으로 그린 그래프예요. 여기서 기울기가 2에 가까우면 n²에 비례한다는 뜻이에요. 기울기를 구해 봐요(n = 256은 고정 비용이 커서 빼요).

# %% [markdown] lang="en"
# The peak is almost exactly the score matrix. A float32 value takes 4 bytes, so at n = 4096 one matrix takes 4096 × 4096 × 4 bytes = 64 MiB (1 MiB = 2²⁰ bytes). There is one per head and per sequence of the batch. At inference the layers run one after another and each layer's score matrices are freed before the next, so the layers do not multiply; in training all layers' matrices are kept for the backward pass, and they do. On log–log axes (both axes on a log scale) a slope near 2 means growth with n². Fit the slope (leaving out n = 256, where fixed costs dominate).

# %% lang="ko"
print(round(long_context.loglog_slope(lengths[1:], costs.plain_peak[1:]), 1))      # 메모리의 기울기
ax = qk.plots.plot_cost_loglog(lengths, {"일반 어텐션": costs.plain_peak}, ylabel="최대 메모리 (바이트)")

# %% lang="en"
# the memory's slope
print(round(long_context.loglog_slope(lengths[1:], costs.plain_peak[1:]), 1))
ax = qk.plots.plot_cost_loglog(lengths, {"plain attention": costs.plain_peak},
                               ylabel="peak memory (bytes)")

# %% [markdown] lang="ko" slide="subslide"
# 시간도 봐요. FLOPs는 `long_context.attention_flops`로 셀 수 있어요. 곱셈 하나와 덧셈 하나를 각각 1로 세서, Q·Kᵀ에 2·n·n·d, 가중치·V에 또 2·n·n·d예요. 역시 n²이에요. 잰 시간은 컴퓨터마다, 실행할 때마다 달라요. 작은 n에서는 고정 비용 때문에 기울기가 흔들리기도 해요.

# %% [markdown] lang="en"
# Now time. `long_context.attention_flops` counts the FLOPs, a multiply and an add counted one each: 2·n·n·d for Q·Kᵀ and another 2·n·n·d for weights·V, again n². Measured times differ between machines and runs; at small n, fixed costs make the slope wobble.

# %% lang="ko" ignore_output=true
print([long_context.attention_flops(n, n, 64) for n in (1024, 2048, 4096)])   # n이 두 배면 FLOPs는 네 배
print(round(long_context.loglog_slope(lengths[1:], costs.plain_seconds[1:]), 1))   # 시간의 기울기
ax = qk.plots.plot_cost_loglog(lengths, {"일반 어텐션": costs.plain_seconds}, ylabel="시간 (초)")

# %% lang="en"
# twice n, four times the FLOPs
print([long_context.attention_flops(n, n, 64) for n in (1024, 2048, 4096)])
# the time's slope
print(round(long_context.loglog_slope(lengths[1:], costs.plain_seconds[1:]), 1))
ax = qk.plots.plot_cost_loglog(lengths, {"plain attention": costs.plain_seconds},
                               ylabel="time (s)")

# %% [markdown] lang="ko" slide="slide"
# ## 2. 타일 어텐션과 온라인 소프트맥스
#
# 점수 행렬을 통째로 만드는 이유는 소프트맥스 때문이에요. 04강에서 봤듯이 안정적인 소프트맥스는 행의 **최댓값**을 빼고, 행 전체의 **지수 합**으로 나눠요. 둘 다 행 전체를 봐야 알 수 있는 값이에요.
#
# **온라인 소프트맥스**는 키를 블록 단위로 읽으면서 쿼리 행마다 세 가지만 들고 다녀요.
#
# - `m`: 지금까지 본 점수의 최댓값
# - `l`: 지금까지의 exp(점수 − m)의 합
# - `o`: 지금까지의 exp(점수 − m) · 밸류의 합 (출력의 분자)
#
# 새 블록에서 더 큰 점수가 나오면 m이 m_new로 커져요. 그러면 지금까지 모은 l과 o는 이전 최댓값 m_old를 기준으로 계산한 값이니, 둘 다 `exp(m_old − m_new)`를 곱해서 새 기준에 맞춰요. 마지막 블록까지 읽으면 o / l이 소프트맥스(점수)·V와 같아요.
#
# 행마다 최댓값과 지수 합만 들고 다니는 방법은 Milakov & Gimelshein(2018)이 먼저 냈고, Rabe & Staats(2021)가 출력까지 함께 들고 다니면서 역전파도 메모리를 적게 쓰게 했어요. FlashAttention(Dao 외, 2022)은 여기에 메모리 입출력을 따지는 설계를 더했어요. 타일을 GPU 칩 안의 빠른 메모리(SRAM)에 맞는 크기로 나누고, 역전파(학습할 때 기울기를 거꾸로 계산하는 단계) 때는 저장해 둔 통계로 점수를 다시 계산해요.
#
# 점수 세 개 [0, 1, 3]을 블록 두 개로 나눠 따라가 봐요.

# %% [markdown] lang="en"
# ## 2. Tiled attention with the online softmax
#
# The whole score matrix is built because of the softmax. As lesson 04 showed, a stable softmax subtracts the row's **maximum** and divides by the row's **sum of exponentials**: both need the whole row.
#
# The **online softmax** reads the keys block by block and carries only three things per query row:
#
# - `m`: the largest score so far
# - `l`: the sum of exp(score − m) so far
# - `o`: the sum of exp(score − m) · value so far (the output's numerator)
#
# When a new block brings a larger score, m grows to m_new. The l and o collected so far were measured against the old maximum m_old, so both are multiplied by **exp(m_old − m_new)** to put them on the new footing. After the last block, o / l equals softmax(scores)·V.
#
# Milakov & Gimelshein (2018) carried each row's running maximum and sum of exponentials; Rabe & Staats (2021) carried the output as well and made the backward pass memory-efficient too. FlashAttention (Dao et al., 2022) made it IO-aware: tiles sized for the GPU's fast on-chip memory (SRAM), and a backward pass that recomputes the scores from saved statistics.
#
# Follow three scores [0, 1, 3] in two blocks.

# %%
scores, values = np.array([0.0, 1.0, 3.0]), np.array([[10.0], [20.0], [30.0]])
for step in long_context.online_softmax_trace(scores, values, block_size=2):
    print(f"{step.keys_seen}: m = {step.m}, l = {step.l:.3f},",  # ko: 맨 앞 숫자 = 지금까지 읽은 키 수
                                                                 # en: first number = keys read so far
          f"exp(m_old − m_new) = {step.rescale:.3f}, o/l = {step.output}")
print(qk.softmax(scores) @ values)                  # ko: 한꺼번에 계산한 softmax·V
                                                    # en: softmax·V all at once

# %% [markdown] lang="ko" slide="subslide"
# 첫 블록 뒤에 m = 1이었다가, 점수 3이 오자 m = 3이 되고 앞의 합에 exp(1 − 3) ≈ 0.135를 곱했어요. 첫 줄의 0.000은 첫 블록 전에는 모은 값이 없다는 뜻이에요(m_old = −∞라서 exp(−∞) = 0). 위젯에서 키 블록이 하나씩 지나가는 걸 보세요. 슬라이더를 움직이면 최댓값이 커질 때 l이 줄었다가 다시 쌓이고, 마지막 블록에서 출력이 softmax·V(회색)에 정확히 닿아요.

# %% [markdown] lang="en"
# After the first block m = 1; when the score 3 arrives m becomes 3 and the earlier sum is multiplied by exp(1 − 3) ≈ 0.135. The first line's factor 0.000 means nothing was kept before the first block: m_old = −∞, and exp(−∞) = 0. In the widget, key blocks stream past one by one. Move the slider: when the maximum grows, l drops and builds up again, and at the last block the output lands exactly on softmax·V (grey).

# %% slide="subslide"
qk.widgets.tiling_animation()

# %% [markdown] lang="ko" slide="slide"
# ### 어텐션 가중치 전체를 만들지 않고도 같은 답
#
# `qk.tiled_attention`은 쿼리와 키를 `block_size` × `block_size` 타일로 나눠서, 쿼리 블록마다 키 블록을 하나씩 흘려보내며 위의 갱신을 해요. (n, n) 어텐션 가중치 전체는 한 번도 만들지 않고 출력만 돌려줘요. 배치와 헤드, 인과 마스크가 있어도 일반 어텐션의 출력과 같은지 확인해요.

# %% [markdown] lang="en"
# ### The same answer, without the full weight matrix
#
# `qk.tiled_attention` cuts queries and keys into `block_size` × `block_size` tiles and, for each block of queries, streams the key blocks past with the update above. It never builds the whole weight matrix and returns only the output. Check that it equals plain attention's output, with batches, heads and the causal mask.

# %%
# ko: (헤드 4, 토큰 300, 16)
# en: (4 heads, 300 tokens, 16)
q, k, v = long_context.attention_inputs(300, d=16, n_heads=4, dtype=np.float64)
mask = qk.causal_mask(300)
plain = qk.scaled_dot_product_attention(q, k, v, mask=mask).output
tiled = qk.tiled_attention(q, k, v, mask=mask, block_size=64)
print(tiled.shape, np.allclose(tiled, plain, rtol=1e-12, atol=1e-12))

# %% [markdown] lang="ko" slide="subslide"
# 이제 1절에서 같이 재 둔 최대 메모리를 비교해요. 타일 어텐션은 한 번에 타일 하나(64 × 64)의 점수만 들고 있어서, 메모리가 n²이 아니라 n에 비례해요. 출력 자체가 n × d니까요. 그래서 두 최대 메모리의 비는 약 n/(2d)예요. 일반 어텐션의 최대 메모리는 n²개의 점수이고, 타일 어텐션의 최대 메모리는 출력과 스케일을 곱해 둔 q의 복사본, 합쳐서 2·n·d개이기 때문이에요.

# %% [markdown] lang="en"
# Compare the peaks measured in section 1. Tiled attention holds one 64 × 64 tile of scores at a time, so its peak grows with n, not n²: 2·n·d floats (its output, a scaled copy of q) against n² scores, a ratio of about n/(2d).

# %% lang="ko"
for n, plain, tiled in zip(lengths, costs.plain_peak, costs.tiled_peak):
    # 일반, 타일, 일반 ÷ 타일
    print(f"n = {n:4d}   {plain / mib:5.1f} MiB   {tiled / mib:5.2f} MiB   ×{plain / tiled:.1f}")
ax = qk.plots.plot_cost_loglog(lengths,
                               {"일반 어텐션": costs.plain_peak, "타일 어텐션": costs.tiled_peak},
                               ylabel="최대 메모리 (바이트)")

# %% lang="en"
for n, plain, tiled in zip(lengths, costs.plain_peak, costs.tiled_peak):
    # plain, tiled, how many times smaller
    print(f"n = {n:4d}   {plain / mib:5.1f} MiB   {tiled / mib:5.2f} MiB   ×{plain / tiled:.1f}")
ax = qk.plots.plot_cost_loglog(lengths,
                               {"plain attention": costs.plain_peak,
                                "tiled attention": costs.tiled_peak},
                               ylabel="peak memory (bytes)")

# %% [markdown] lang="ko" slide="subslide"
# ### 순전파의 FLOPs는 같고, 아끼는 건 메모리 이동이에요
#
# 순전파(입력에서 출력을 계산하는 방향)에서 타일 어텐션은 행렬 곱의 FLOPs가 일반 어텐션과 같아요. 같은 n × n개의 점수를 한 번씩, 순서만 바꿔 계산하니까요. 아래 셀의 카운터는 계산한 점수 수에 2·(d_k + d_v)를 곱해서 FLOPs를 세어요. 최댓값이 바뀔 때 다시 맞추는 곱셈은 행렬 곱에 비하면 작아서 세지 않아요.
#
# 학습에서는 달라요. 역전파(기울기를 거꾸로 계산하는 방향)에는 어텐션 가중치가 필요한데, FlashAttention은 (n, n) 행렬을 저장하지 않으니 역전파 때 Q·Kᵀ를 **다시 계산**해요. 그래서 학습 전체의 FLOPs는 더 많아요.
#
# 그래도 더 빨라요. 어텐션에서 느린 건 계산보다 n × n 점수를 GPU의 **큰 메모리(HBM)와 주고받는 일**이에요. HBM은 GPU 칩 밖에 있는 크지만 느린 메모리이고, **SRAM**은 칩 안의 작지만 빠른 메모리예요. 소프트맥스는 바이트 하나당 계산이 적어서 메모리 이동이 시간을 정해요. 큰 행렬 곱은 6절의 프리필처럼 계산에 묶여요. 이 둘을 가르는 기준(산술 강도)은 6절에서 다뤄요. 일반 어텐션은 (n, n) 점수를 HBM에 쓰고, 소프트맥스 때 다시 읽고 쓰고, 가중치·V 때 또 읽어요. 타일 어텐션은 타일을 SRAM에 두고 끝내서 이 n² 크기의 왕복이 없어져요(FlashAttention 논문 3.2절).
#
# <details><summary><b>더 알아보기</b>: 타일 어텐션도 메모리를 오가요</summary>
#
# 이동이 0이 되는 건 아니에요. 한쪽을 다른 쪽의 블록마다 다시 읽어야 해요. FlashAttention-1은 키 블록마다 쿼리와 중간 출력을, FlashAttention-2와 이 코스의 코드는 쿼리 블록마다 K와 V를 HBM에서 다시 읽어요. 그래서 HBM 접근 횟수(원소 수)는 Θ(n²d²/M)이에요. M은 SRAM 크기예요(FlashAttention 논문의 정리 2). Θ(…)는 '크게 보면 …에 비례한다'는 뜻이에요. 0이 되지는 않지만, 일반 어텐션의 Θ(nd + n²)보다는 훨씬 작아요.
# </details>
#
# 여기 numpy 버전은 오히려 느려요. 타일마다 파이썬 반복문을 한 번씩 도는 비용이 커서요. 아이디어를 보여 주는 코드이지, 빠른 **커널**(GPU에서 한 번에 실행되는 계산 프로그램)이 아니에요.

# %% [markdown] lang="en"
# ### Same forward FLOPs; what it saves is memory traffic
#
# In the forward pass (inputs to output), tiled attention does the same matrix-product FLOPs as plain attention: the same n × n scores, each computed once, in another order. The counter below counts the scores computed times 2·(d_k + d_v); the rescaling when the maximum changes is small elementwise work next to the matrix products and is not counted.
#
# Training is different. The backward pass (computing the gradients) needs the attention weights, and FlashAttention keeps no (n, n) matrix, so its backward pass **recomputes** Q·Kᵀ: over training it does more FLOPs.
#
# It is still faster. For attention, the slow part is not the arithmetic but moving the n × n scores to and from the GPU's **large memory (HBM)**, the big, slow memory beside the chip; **SRAM** is the small, fast memory on it. The softmax does few FLOPs per byte, so memory traffic sets its time (large matrix products, like section 6's prefill, are limited by arithmetic instead; section 6 measures what separates the two, the arithmetic intensity). Plain attention writes the (n, n) scores to HBM, reads and writes them again for the softmax, and reads them once more for weights·V. Tiled attention keeps each tile in SRAM until it is done, so those n²-sized round trips disappear (FlashAttention paper, §3.2).
#
# <details><summary><b>Read more</b>: tiled attention moves memory too</summary>
#
# The traffic is not zero: one operand is re-read for every block of the other (in FlashAttention-1 the queries and partial outputs for every key block, in FlashAttention-2 and here the keys and values for every query block), Θ(n²d²/M) element accesses with M the SRAM size (FlashAttention, Theorem 2), against plain attention's Θ(nd + n²).
# </details>
#
# The numpy version here is actually slower: each tile costs one pass of a Python loop. It shows the idea; it is not a fast **kernel** (a program run on the GPU in one launch).

# %%
from qkv_helpers.tiled import tiled_attention_with_work

work = tiled_attention_with_work(q[0], k[0], v[0], block_size=64)      # ko: 헤드 하나, 마스크 없음
                                                                       # en: one head, no mask
print(work.flops, long_context.attention_flops(300, 300, 16))                     # ko: 같은 FLOPs
                                                                                  # en: the same FLOPs
print(300 * 300 * 8, 64 * 64 * 8)     # ko: 바이트: 일반 어텐션이 메모리에 쓰는 점수 행렬, 타일 하나
                                      # en: bytes: the score matrix plain attention writes out, one tile

# %% slide="subslide"
# ko: 어텐션 가중치 P를 저장해 역전파에 써요
# en: keeps P for the backward pass
plain_train = long_context.attention_training_flops(4096, 4096, 64)
# ko: 역전파 때 점수 S = Q·Kᵀ를 다시 계산해요
# en: recomputes S in the backward
flash_train = long_context.attention_training_flops(4096, 4096, 64, recompute=True)
print(plain_train.forward == flash_train.forward)           # ko: 순전파: 같아요
                                                            # en: forward: equal
print(plain_train.backward, flash_train.backward)           # ko: 역전파: 다시 계산하는 만큼 더 많아요
                                                            # en: backward: more, by the recomputation
print(round(flash_train.total / plain_train.total, 3))      # ko: 학습 한 번 전체의 FLOPs 비율
                                                            # en: the ratio over a whole training step

# %% ignore_output=true
# ko: 일반, 타일(numpy)
# en: plain, tiled (numpy)
print(f"n = 4096: {costs.plain_seconds[-1] * 1000:.0f} ms, {costs.tiled_seconds[-1] * 1000:.0f} ms")

# %% [markdown] lang="ko" slide="subslide"
# ### 인과 마스크가 가린 타일은 건너뛰어요
#
# 디코더의 인과 마스크에서는 대각선 위의 타일이 **통째로** 가려져요. 그 타일의 가중치는 모두 0이니 계산할 필요가 없어요. 타일 수와 FLOPs를 세어 보면 절반 조금 넘게만 남아요. 타일 t × t개 중 t(t + 1)/2개예요.

# %% [markdown] lang="en"
# ### Skipping the tiles the causal mask hides
#
# With a decoder's causal mask, the tiles above the diagonal are hidden **entirely**: all their weights are 0, so they need no work at all. Counting tiles and FLOPs, a little over half remain: t(t + 1)/2 of t × t tiles.

# %% ignore_output=true
full_tiles, kept_tiles, full_flops, kept_flops = long_context.causal_tile_work(4096, block_size=64)
# ko: 64 × 64 격자의 타일 4096개, 그중 계산하는 타일 수, FLOPs의 비
# en: the 4096 tiles of a 64 × 64 grid, the tiles computed, the ratio of FLOPs
print(full_tiles, kept_tiles, round(kept_flops / full_flops, 3))
x = long_context.attention_inputs(4096, d=64)
causal = qk.causal_mask(4096)
skip = long_context.measure_time(qk.tiled_attention, *x, mask=causal, repeats=1)
no_skip = long_context.measure_time(qk.tiled_attention, *x, mask=causal, skip_hidden_blocks=False,
                                repeats=1)
print(f"{skip:.2f} s, {no_skip:.2f} s")                # ko: 건너뛰기, 모두 계산
                                                       # en: skipping, computing every tile

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 두 절반 합치기
#
# 온라인 소프트맥스의 핵심은 "서로 다른 기준(m)으로 모은 합을 맞춰서 합치기"예요. 그래서 키를 두 절반으로 나눠 **따로** 계산한 다음 합칠 수도 있어요. GPU 여러 개가 긴 문장을 나눠 맡을 때 이렇게 해요.
#
# 아래 `first`는 키 0–3만, `second`는 키 4–7만 보고 계산한 결과예요. 각각 `m`, `l`, `output`(= o / l)이 있어요. 이 여섯 값만 써서 키 8개 전체에 대한 출력 softmax(s)·v를 `my_output`에 만들어 보세요. 힌트: 먼저 둘 중 큰 최댓값을 m_new로 정하고, 각 절반의 `l`에 exp(m_old − m_new)를 곱해 보세요(m_old는 그 절반의 `m`).

# %% [markdown] lang="en"
# ## Try it: merge two halves
#
# The heart of the online softmax is "rescale sums collected against different maxima (m) and add them". So the keys can be split in two halves, computed **separately**, and merged. Several GPUs sharing a long sequence do exactly this.
#
# Below, `first` saw only keys 0–3 and `second` only keys 4–7; each has `m`, `l` and `output` (= o / l). Using just these six values, build the output over all 8 keys, softmax(s)·v, in `my_output`. Hint: first take the larger maximum as m_new, then multiply each half's `l` by exp(m_old − m_new) (m_old is that half's `m`).

# %% exercise=true
rng = np.random.default_rng(7)
s, v8 = rng.normal(size=8) * 2, rng.normal(size=(8, 3))        # ko: 쿼리 하나의 점수 8개와 밸류
                                                               # en: one query's 8 scores and values
first = long_context.online_softmax_trace(s[:4], v8[:4], block_size=4)[-1]
second = long_context.online_softmax_trace(s[4:], v8[4:], block_size=4)[-1]
my_output = ...   # ko: first.m, first.l, first.output, second.m, second.l, second.output만 써서
                  # en: using only first.m, first.l, first.output, second.m, second.l, second.output
qk.checks.check_merged_halves(my_output, s, v8)

# %% solution=true
m = max(first.m, second.m)                      # ko: 새 기준
                                                # en: the new footing
w1 = first.l * np.exp(first.m - m)              # ko: 새 기준으로 맞춘 각 절반의 지수 합
                                                # en: each half's sum of exps, rescaled to it
w2 = second.l * np.exp(second.m - m)
my_output = (w1 * first.output + w2 * second.output) / (w1 + w2)
qk.checks.check_merged_halves(my_output, s, v8).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 3. 멀티쿼리 어텐션과 그룹 쿼리 어텐션
#
# 09강에서 KV 캐시의 크기를 `2 · 레이어 · KV 헤드 · head_dim · 토큰 · 배치 · 값당 바이트`로 계산했어요. **그룹 쿼리 어텐션**(GQA)은 쿼리 헤드를 그룹으로 묶고, 그룹마다 KV 헤드 **하나**를 나눠 쓰게 해요. 쿼리 헤드 h는 KV 헤드 `h // (쿼리 헤드 수 // KV 헤드 수)`를 써요. `//`는 나눗셈의 몫이에요. PyTorch도 같은 규칙을 써요. KV 헤드가 하나뿐이면 **멀티쿼리 어텐션**(MQA)이에요.
#
# `qk.grouped_query_attention`은 KV 헤드를 그룹 크기만큼 반복해서 일반 멀티헤드 어텐션 계산에 넣어요. 쿼리 헤드 8개, KV 헤드 2개로 해 봐요.

# %% [markdown] lang="en"
# ## 3. Multi-query and grouped-query attention
#
# Lesson 09 computed the KV cache as `2 · layers · kv_heads · head_dim · tokens · batch · bytes_per_value`. **Grouped-query attention** (GQA) groups the query heads and lets each group share **one** K/V head: query head h uses K/V head `h // (n_q_heads // n_kv_heads)` (PyTorch's rule). With a single K/V head it is **multi-query attention** (MQA).
#
# `qk.grouped_query_attention` repeats each K/V head once per group member and runs ordinary multi-head attention. Try 8 query heads and 2 K/V heads.

# %%
rng = np.random.default_rng(0)
q8 = rng.normal(size=(8, 5, 16))                    # ko: 쿼리 헤드 8개, 토큰 5개
                                                    # en: 8 query heads, 5 tokens
k2, v2 = rng.normal(size=(2, 2, 5, 16))             # ko: KV 헤드 2개: 그룹 크기 4
                                                    # en: 2 K/V heads: groups of 4
out, weights = qk.grouped_query_attention(q8, k2, v2, mask=qk.causal_mask(5))
print(out.shape, weights.shape)
head6 = qk.scaled_dot_product_attention(q8[6], k2[1], v2[1], mask=qk.causal_mask(5)).output
print(np.allclose(out[6], head6))                   # ko: 6번 쿼리 헤드는 6 // 4 = 1번 KV 헤드를 써요
                                                    # en: query head 6 uses K/V head 6 // 4 = 1

# %% [markdown] lang="ko" slide="subslide"
# 쿼리 헤드마다 자기 KV 헤드가 있으면(KV 헤드 8개) 그냥 멀티헤드 어텐션과 똑같아요. 그리고 캐시에는 **KV 헤드만** 들어가니, 캐시가 그룹 크기분의 1로 줄어요. 09강의 `qk.KVCache`로 토큰 1,024개를 저장해서 크기를 재고, 공식과 같은지 확인해요.

# %% [markdown] lang="en"
# With one K/V head per query head (8 K/V heads) it is exactly multi-head attention. And since only the **K/V heads** are cached, the cache shrinks to 1/(group size). Keep 1,024 tokens in lesson 09's `qk.KVCache`, measure, and compare with the formula.

# %%
k8, v8h = rng.normal(size=(2, 8, 5, 16))
print(np.allclose(qk.grouped_query_attention(q8, k8, v8h).output,
                  qk.scaled_dot_product_attention(q8, k8, v8h).output))
from qkv_helpers.kv_cache import arithmetic

for kv_heads in (8, 2, 1):                          # ko: 멀티헤드, GQA, MQA
                                                    # en: multi-head, GQA, MQA
    cache = qk.KVCache(n_heads=kv_heads, head_dim=16, capacity=1024)
    kv = np.zeros((kv_heads, 1024, 16), np.float32)
    cache.append(kv, kv)
    # ko: 잰 값, 공식
    # en: measured, formula
    print(kv_heads, cache.nbytes, arithmetic.kv_cache_bytes(1, kv_heads, 16, 1024, 1, 4))

# %% [markdown] lang="ko" slide="subslide"
# **주의할 점**이 있어요. GQA는 계산 요령이 아니라 **다른 모델**이에요. 멀티헤드로 학습한 모델의 KV 헤드를 그냥 합치면 출력이 달라져요. 모델을 처음부터 이렇게 학습하거나(Llama-2-70B, Mistral 7B), 합친 뒤 추가로 학습해야 해요. 이 추가 학습(업트레이닝)에는 처음에 모델을 학습할 때(사전 학습) 든 계산량의 5% 정도면 된다고 해요(Ainslie 외, 2023). 멀티헤드의 KV 헤드 8개를 4개씩 평균 내서 2개로 줄여 보면 출력이 달라져요.

# %% [markdown] lang="en"
# **A caveat**: GQA is not a computational trick but **a different model**. Merging the K/V heads of a model trained with multi-head attention changes its outputs; the model must be trained this way (Llama-2-70B, Mistral 7B) or trained further after merging ("uptraining", about 5% of the original pre-training compute in Ainslie et al., 2023). Average a multi-head model's 8 K/V heads in fours down to 2, and the output changes.

# %%
merged_k = k8.reshape(2, 4, 5, 16).mean(axis=1)    # ko: KV 헤드 8개를 4개씩 평균 내 2개로
                                                   # en: average the 8 K/V heads in fours: 2 heads
merged_v = v8h.reshape(2, 4, 5, 16).mean(axis=1)
multi = qk.scaled_dot_product_attention(q8, k8, v8h).output
# en: the output changes
print(np.allclose(qk.grouped_query_attention(q8, merged_k, merged_v).output, multi))   # ko: 출력이 달라져요

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 어느 쿼리 헤드들이 KV 헤드 하나를 나눠 쓸까요?
#
# 쿼리 헤드 64개와 KV 헤드 8개인 모델(Llama-2-70B가 이래요)에서 **5번 KV 헤드**를 나눠 쓰는 쿼리 헤드는 어느 것들일까요? 먼저 예측해서 번호(0부터)를 리스트로 `my_heads`에 적고 실행해 보세요. 확인은 `qk.grouped_query_attention`의 출력으로 해요.

# %% [markdown] lang="en"
# ## Try it: which query heads share one K/V head?
#
# In a model with 64 query heads and 8 K/V heads (Llama-2-70B is built this way), which query heads share **K/V head 5**? Predict first, write their numbers (from 0) as a list in `my_heads` and run. The check compares with `qk.grouped_query_attention`'s output.

# %% exercise=true
my_heads = ...   # ko: 쿼리 헤드 번호의 리스트 (0부터)
                 # en: a list of query head numbers (from 0)
qk.checks.check_gqa_group(my_heads, n_q_heads=64, n_kv_heads=8, kv_head=5)

# %% solution=true
group = 64 // 8                                   # ko: 그룹 크기 8: 이웃한 쿼리 헤드 8개가 한 그룹
                                                  # en: groups of 8 neighbouring query heads
my_heads = list(range(5 * group, 6 * group))      # ko: 쿼리 헤드 h는 KV 헤드 h // 8을 써요
                                                  # en: query head h uses K/V head h // 8
qk.checks.check_gqa_group(my_heads, n_q_heads=64, n_kv_heads=8, kv_head=5).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 4. 슬라이딩 윈도 어텐션
#
# 인과 마스크에서 쿼리는 앞의 **모든** 토큰을 봐요. **슬라이딩 윈도** 마스크는 자기 자신을 포함해 최근 토큰 `window`개만 보게 해요. 식으로는 (쿼리 위치 − 키 위치)가 0 이상 `window` 미만일 때만 True예요.

# %% [markdown] lang="en"
# ## 4. Sliding-window attention
#
# Under the causal mask a query sees **every** earlier token. A **sliding-window** mask lets it see only the last `window` positions, itself included: True only where query position − key position is at least 0 and less than `window`.

# %%
print(qk.sliding_window_mask(6, window=3).astype(int))
# ko: 윈도가 문장 전체를 덮으면 인과 마스크
# en: a window covering everything: the causal mask
print(np.array_equal(qk.sliding_window_mask(6, window=6), qk.causal_mask(6)))

# %% [markdown] lang="ko" slide="subslide"
# 그러면 디코딩할 때 캐시에 최근 `window`개만 두면 돼요. 오래된 토큰은 어차피 아무 쿼리도 보지 않으니까요. `long_context.windowed_decoding`은 토큰을 하나씩 디코딩하면서 최근 `window`개만 두는 캐시와, 모두 두는 09강의 캐시를 나란히 채워요. 출력은 윈도 마스크를 쓴 어텐션과 같고, 캐시 크기는 윈도 크기만큼 커진 뒤 더 늘지 않아요.

# %% [markdown] lang="en"
# So when decoding, the cache needs only the last `window` tokens: older ones are seen by no query anyway. `long_context.windowed_decoding` decodes token by token, filling a cache that keeps only the last `window` tokens beside lesson 09's cache that keeps them all. The outputs equal attention with the window mask, and the cache stops growing at the window.

# %%
q, k, v = long_context.attention_inputs(64, d=16, n_heads=2, dtype=np.float64)
run = long_context.windowed_decoding(q, k, v, window=8)
masked = qk.scaled_dot_product_attention(q, k, v, mask=qk.sliding_window_mask(64, window=8)).output
print(np.allclose(run.output, masked))
# en: cache bytes after 8, 16, 64 tokens: window
print([run.cache_nbytes[t - 1] for t in (8, 16, 64)])        # ko: 토큰 8, 16, 64개 뒤의 캐시 바이트: 윈도
print([run.full_cache_nbytes[t - 1] for t in (8, 16, 64)])   # ko: 모두 두는 캐시
                                                             # en: the cache that keeps everything
# en: a window covering everything
full = long_context.windowed_decoding(q, k, v, window=64).output       # ko: 윈도가 문장 전체를 덮으면
print(np.allclose(full, qk.scaled_dot_product_attention(q, k, v, mask=qk.causal_mask(64)).output))

# %% [markdown] lang="ko" slide="subslide"
# 그럼 `window`칸보다 먼 토큰의 정보는 사라질까요? 한 레이어에서는 그래요. 하지만 레이어를 쌓으면, 위 레이어의 토큰은 아래 레이어에서 **이미 앞쪽을 본** 토큰들을 봐요. 그래서 레이어마다 window − 1칸씩 더 멀리 닿을 수 있어요. 레이어 L개면 L·(window − 1) + 1칸이에요. 이건 정보가 닿을 수 **있는** 이론상의 거리예요. 먼 토큰의 정보가 그만큼 실제로 잘 전해진다는 보장은 없어요. 마스크를 레이어 수만큼 곱해서 직접 세어 봐요.

# %% [markdown] lang="en"
# Is information further back than the window lost, then? In one layer, yes. But in a stack, a token in an upper layer attends to tokens that **already looked back** in the layer below. Each layer can reach window − 1 positions further: L·(window − 1) + 1 positions after L layers. That is a *theoretical* reach, how far information can travel, not a guarantee that it does. Count it by multiplying the mask by itself once per layer.

# %%
for layers in (1, 2, 4):
    # ko: 센 값, 공식
    # en: counted, formula
    print(layers, long_context.receptive_field_by_masks(n=40, window=4, layers=layers),
          long_context.receptive_field(window=4, layers=layers))
# en: window 4096 (itself included), 32 layers
print(long_context.receptive_field(window=4096, layers=32))            # ko: 윈도 4096(자기 자신 포함), 레이어 32
# ko: Mistral 7B v0.1의 W = 4096은 자기 자신을 빼고 센 값이에요
# en: Mistral 7B v0.1: its W = 4096 leaves itself out
print(long_context.receptive_field(window=4097, layers=32))

# %% [markdown] lang="ko" slide="subslide"
# 윈도를 세는 방법은 문서마다 달라요. 이 코스의 `window`는 쿼리 자신을 포함해요. Mistral 7B v0.1 논문은 위치 i가 i − W부터 i까지를 본다고 쓰니, 논문에 쓰인 대로라면 W = 4096은 이 코스의 `window` = 4097이에요. 다만 논문의 롤링 버퍼 캐시는 현재 토큰까지 포함해 4096칸을 담아서, 구현마다 한 칸씩 달라요. 논문의 W로 세면 레이어 32개로 자기 자신 말고 W·L = 131,072칸 앞까지 닿아요. 논문이 말하는 "약 131K"(약 13만 1천)가 이 값이에요. Mistral 7B v0.2부터는 슬라이딩 윈도를 쓰지 않아요.

# %% [markdown] lang="en"
# Sources count the window differently. This course's `window` includes the query itself. The Mistral 7B v0.1 paper has position i attend to positions i − W to i, so by the paper's text its W = 4096 is this course's window 4097. Its rolling-buffer cache, though, keeps 4096 entries, the current token's included, so implementations differ by one. Counting with the paper's W, with 32 layers the reach is W·L = 131,072 positions back, besides the token itself, the paper's "approximately 131K". From v0.2 on, Mistral 7B uses no sliding window.

# %% [markdown] lang="ko" slide="slide"
# ## 5. 페이지 KV 캐시 (PagedAttention)
#
# 서버는 길이를 미리 모르는 요청을 여러 개 동시에 처리해요. vLLM 이전의 서버들은 09강의 `KVCache`처럼 요청마다 연속된 메모리를 잡았어요. 그러려면 가장 긴 경우(`max_len`)만큼 미리 잡아 둬야 해요. 대부분의 요청은 훨씬 짧으니 그 자리는 비어 있어요.
#
# vLLM의 **PagedAttention**은 운영체제의 **가상 메모리**와 같은 방법을 써요. 가상 메모리는 프로그램에게는 연속된 메모리처럼 보여 주면서, 실제로는 흩어진 작은 조각(페이지)에 담는 방식이에요. 메모리를 `block_size` 토큰짜리 **블록**으로 잘게 나눠 한곳에 모아 둔 **블록 풀**을 두고, 요청은 마지막 블록이 차면 새 블록을 하나 받아요. 요청마다 **블록 표**가 있어서 "내 i번째 블록은 풀의 몇 번 블록"인지 적어 둬요. 끝난 요청의 블록은 풀로 돌아가 다른 요청이 다시 써요. 낭비는 요청마다 마지막 블록의 빈자리뿐이에요. 블록 표는 블록 번호의 목록일 뿐이라서, 프롬프트가 같은 두 요청이 같은 블록을 가리킬 수도 있어요. 어느 한쪽이 그 블록에 새 값을 써 넣어야 할 때만 복사해요(copy-on-write). vLLM은 이걸 프롬프트 하나로 답을 여러 개 만들 때(병렬 샘플링, 빔 서치: 후보 문장 여러 개를 함께 키워 가며 고르는 디코딩) 써요.

# %% [markdown] lang="en"
# ## 5. A paged KV cache (PagedAttention)
#
# A server handles many requests at once without knowing how long each will get. Servers before vLLM gave each request contiguous memory like lesson 09's `KVCache`, so room for the longest case (`max_len`) had to be reserved up front, and since most requests are far shorter, most of it stays empty.
#
# vLLM's **PagedAttention** does what an operating system's **virtual memory** does: a program sees contiguous memory that really lives in small scattered pieces (pages). It keeps a pool of memory cut into **blocks** of `block_size` tokens; a request gets a new block only when its last one is full. Each request has a **block table** recording which pool block holds its i-th block. A finished request's blocks go back to the pool for others to reuse. The only waste is the empty end of each request's last block. And since a block table is only a list of block numbers, two requests with the same prompt can point to the same blocks, copied only when one of them writes (copy-on-write); vLLM uses this for parallel sampling and beam search (decoding that grows several candidate sentences together and picks among them).

# %% slide="subslide"
cache = qk.PagedKVCache(n_heads=2, head_dim=4, block_size=4, n_blocks=6)
a, b = cache.new_sequence(), cache.new_sequence()
def kv(n):
    return np.ones((2, n, 4), np.float32)               # ko: (헤드, 새 토큰, head_dim)
                                                        # en: (heads, new tokens, head_dim)
cache.append(a, kv(5), kv(5))
cache.append(b, kv(2), kv(2))
cache.append(a, kv(4), kv(4))
# en: a's blocks are scattered in the pool
print(cache.block_table(a), cache.block_table(b), cache.keys(a).shape)   # ko: a의 블록은 풀에 흩어져 있어요
cache.free(a)                                           # ko: a가 끝남: 블록 3개가 풀로
                                                        # en: a is done: its 3 blocks go back
c = cache.new_sequence()
cache.append(c, kv(6), kv(6))
# ko: c의 블록 표(a의 블록을 다시 써요), 캐시 전체에서 토큰이 쓰는 바이트, 잡아 둔 블록의 바이트
# en: c's block table (a's blocks reused); whole cache: bytes the tokens use, bytes of blocks held
print(cache.block_table(c), cache.used_nbytes, cache.reserved_nbytes)

# %% [markdown] lang="ko" slide="subslide"
# 블록 풀에 빈 블록이 없으면 분명한 오류가 나고, 이미 저장한 건 하나도 잃지 않아요. append는 전부 되거나, 전혀 안 되거나 둘 중 하나예요.

# %% [markdown] lang="en"
# When the pool is full, the error is clear and nothing already kept is lost (an append happens completely or not at all).

# %%
try:
    cache.append(b, kv(20), kv(20))
except MemoryError as error:
    print(error)
print(cache.length(b), cache.block_table(b))            # ko: b는 그대로예요
                                                        # en: b is unchanged

# %% [markdown] lang="ko" slide="subslide"
# 위젯에서 '시간 스텝' 슬라이더를 움직여 보세요. 요청(R0, R1, …)이 들어와 스텝마다 토큰을 하나씩 늘리고, 끝나면 블록을 돌려줘요. 블록 안의 색은 채워진 자리예요.

# %% [markdown] lang="en"
# Move time in the widget: requests (R0, R1, …) arrive, grow by one token per step, and give their blocks back when done. The colour inside a block shows its filled slots.

# %% slide="subslide"
qk.widgets.paged_cache_view()

# %% [markdown] lang="ko" slide="subslide"
# 이제 요청 64개(길이는 1–2048 사이 무작위)를 처리할 때의 메모리를 재요. 작은 레이어 하나(헤드 2개, head_dim 32, float32)로 재는데, 낭비의 비율은 이 크기와 상관없어요. 블록은 16토큰이고, 요청들은 16토큰씩 번갈아 덧붙여요. 세 값은 모두 캐시 객체에서 읽어요. 토큰이 실제로 쓰는 바이트, 페이지 캐시가 잡은 블록의 바이트, 그리고 요청마다 `KVCache(capacity=2048)`을 잡았을 때의 바이트예요.

# %% [markdown] lang="en"
# Now measure serving 64 requests with random lengths from 1 to 2048, on one small layer (2 heads, head_dim 32, float32): the share wasted does not depend on these sizes. Blocks hold 16 tokens, and the requests take turns appending 16 tokens at a time.
#  All three numbers are read from the cache objects: the bytes the tokens really use, the bytes of the blocks the paged cache holds, and the bytes of one `KVCache(capacity=2048)` per request.

# %% slide="subslide"
lengths_64 = long_context.request_lengths(64, max_len=2048, seed=0)
memory = long_context.serve_requests(lengths_64, max_len=2048, block_size=16, n_heads=2,
                                     head_dim=32, tokens_per_step=16)
# en: used by the tokens
print(f"{memory.used / mib:.1f} MiB")                                                   # ko: 토큰이 쓰는 양
# en: paged cache, waste
print(f"{memory.paged_reserved / mib:.1f} MiB, {memory.paged_waste:.1%}")               # ko: 페이지 캐시, 낭비
# ko: 요청마다 max_len, 낭비
# en: max_len per request, waste
print(f"{memory.max_len_reserved / mib:.1f} MiB, {memory.max_len_waste:.1%}")
ax = qk.plots.plot_serving_memory(memory)

# %% [markdown] lang="ko" slide="subslide"
# max_len으로 잡을 때의 낭비가 절반쯤인 건 여기서 길이를 1–2048 사이에서 고르게 뽑았기 때문이에요. 낭비는 1 − 평균 길이 / max_len이라 길이의 분포에 따라 달라요. vLLM 논문은 기존 서버들이 KV 캐시 메모리의 20–38%만 실제 토큰에 썼다고 쟀어요. 실제 출력은 보통 max_len보다 훨씬 짧고, 메모리가 조각나기도 하니까요.

# %% [markdown] lang="en"
# Reserving max_len wastes about half here because the lengths are drawn uniformly from 1 to 2048: the waste is 1 − mean length / max_len, so it depends on the distribution of lengths. The vLLM paper measured existing servers using only 20–38% of their KV-cache memory for tokens, since real outputs are usually far shorter than max_len and memory also fragments.

# %% [markdown] lang="ko" slide="slide"
# ## 6. 프리필과 디코드
#
# 추론은 두 단계예요. **프리필**은 프롬프트 전체를 한 번에 넣어 캐시를 채우고, **디코드**는 그 뒤 토큰을 하나씩 만들어요. 둘은 같은 가중치 행렬(매개변수)을 쓰지만 성격이 완전히 달라요. 둘을 가르는 기준은 **산술 강도**예요. 산술 강도는 메모리와 주고받은 바이트 하나당 FLOPs예요.
#
# GPU는 초당 FLOPs의 최댓값과 초당 읽을 수 있는 바이트(대역폭)가 정해져 있어요. 최대 FLOPs를 대역폭으로 나눈 값이 **경계점**이에요. 산술 강도가 경계점보다 낮으면 연산 장치가 데이터를 기다리느라 놀고(메모리에 묶여요), 높으면 연산 속도가 한계가 돼요(계산에 묶여요). 하드웨어 수치는 제조사 자료에서 가져왔어요. 아래 출처 줄에 자료의 수치를 옮겨 두었어요. 'with sparsity'는 특별한 희소 연산을 쓸 때의 값이라 여기서는 쓰지 않고, 보통 연산(dense)의 값을 써요. H100 자료에는 희소 연산 값(1,979)만 있어서, 보통 연산은 그 절반인 989예요.

# %% [markdown] lang="en"
# ## 6. Prefill and decode
#
# Inference has two phases. **Prefill** runs the whole prompt at once and fills the cache; **decode** then produces tokens one at a time. Both use the same weight matrices but behave very differently. The measure is **arithmetic intensity**: FLOPs per byte moved to or from memory.
#
# A GPU has a peak FLOP rate and a memory bandwidth (bytes per second); their ratio is the **ridge point**. Below it in arithmetic intensity, the arithmetic units wait for data (memory-bound); above it, arithmetic is the limit (compute-bound). The hardware facts are from the makers' datasheets, quoted below; the figures "with sparsity" need special sparse operations and are not used here: the dense ones are (the H100 datasheet gives only the sparse 1,979; dense is half, 989).

# %%
for gpu in (long_context.A100_80GB, long_context.H100_SXM):
    print(f"{gpu.name}: {gpu.peak_flops / 1e12:.0f} TFLOP/s, {gpu.bandwidth / 1e9:,.0f} GB/s",
          f"→ {gpu.ridge:.0f} FLOP/B")  # ko: 경계점
                                        # en: the ridge
    print("   ", gpu.source)                            # ko: 출처
                                                        # en: the source

# %% [markdown] lang="ko" slide="subslide"
# `long_context.step_cost`는 Llama-2-7B의 크기(레이어 32, d_model 4096, 헤드 32, 피드포워드 11008, 어휘 32000, fp16)로 한 스텝의 FLOPs와 읽는 바이트 수를 세어 줘요. 행렬 곱에 쓰이는 가중치 행렬(매개변수)은 스텝마다 한 번 통째로 읽고, 토큰 하나에 매개변수 하나당 2 FLOPs를 써요. 임베딩 표는 필요한 행만 찾아 읽으니 빠져요. 그래서 읽는 매개변수는 13.2 GB로, 09강의 12.55 GiB(= 13.5 GB)보다 조금 작아요. GB는 10⁹바이트, GiB는 1024³바이트예요. 세는 건 매개변수(가중치 행렬)와 KV 캐시를 **읽는** 바이트뿐이에요. 활성값(레이어 사이를 오가는 중간 결과)과 KV 캐시에 **쓰는** 바이트는 빠져 있어요. 프리필에서 이 바이트까지 세면 강도가 낮아져요. 어텐션을 커널 하나로 합친 경우(FlashAttention)에도 두세 배쯤 낮아져요. (헤드, n, n) 점수를 메모리에 썼다 다시 읽는 구현은 레이어마다 적어도 1 GB를 더 옮겨서(점수와 어텐션 가중치를 한 번씩 쓰고 읽기: 4 × 32 × 2048² × 2 B = 1.07 GB) 활성값까지 합치면 다섯 배쯤(400~500 FLOP/B) 낮아지지만, 그래도 경계점보다 높아요. 1절의 numpy 코드처럼 마스크, 최댓값, 빼기, exp, 합, 나눗셈마다 행렬 전체를 float32로 다시 읽으면 몇 배 더 옮겨서 경계점 아래로 내려갈 수도 있어요. 어텐션의 FLOPs에는 인과 마스크로 가려진 절반의 키까지 모두 넣었어요.

# %% [markdown] lang="en"
# `long_context.step_cost` counts one step's FLOPs and bytes read at Llama-2-7B's sizes (32 layers, d_model 4096, 32 heads, feed-forward 11008, vocabulary 32000, fp16). Every weight matrix used in a matrix product is read once per step, and each token does 2 FLOPs per weight; the embedding table is only looked up, so 13.2 GB rather than lesson 09's 12.55 GiB (13.5 GB). Only the bytes *read* for weights and the KV cache are counted: activations (the intermediate results passed between layers) and the KV cache writes are left out. In prefill they lower the intensity about two to three times even with attention fused into one kernel (FlashAttention). An implementation that writes the (heads, n, n) scores out and reads them back moves at least 1 GB more per layer here (scores and attention weights each written and read: 4 × 32 × 2048² × 2 B = 1.07 GB): with the activations, about five times lower (400–500 FLOP/B), still above the ridge. Code like section 1's numpy attention, which reads the whole matrix again at every step (mask, max, subtract, exp, sum, divide) in float32, moves several times more and can fall below it. Attention counts every key, the masked half included.

# %% [markdown] lang="ko" slide="subslide"
# 세 경우를 비교해요.
#
# - 프리필 2048토큰: 매개변수를 한 번 읽어 토큰 2048개에 써요. 강도가 아주 높아요.
# - 디코드 1토큰: 매개변수를 통째로 읽어 토큰 **하나**에 써요. fp16 매개변수 하나(2바이트)를 읽을 때마다 2 FLOPs를 하니 강도가 약 1이에요. 경계점보다 100배 넘게 낮아서, GPU는 대부분의 시간을 데이터를 기다리며 보내요.
# - 디코드를 요청 64개씩 **배치**로 하면 매개변수를 한 번 읽어 64개에 나눠 써요. 그래서 배치가 클수록 강도가 올라가요(얼마나 오르는지는 아래에서 봐요). 서버가 요청을 모아 처리하는 이유예요.

# %% [markdown] lang="en"
# Three cases:
#
# - Prefill of 2048 tokens: the weights are read once and used for 2048 tokens. Very high intensity.
# - Decode of 1 token: all the weights are read for **one** token: 2 FLOPs per 2 bytes (fp16), an intensity of about 1, over 100× below the ridge. The GPU mostly waits.
# - Decoding a **batch** of 64 requests reads the weights once and shares them among 64: the intensity rises with the batch. That is why servers batch requests.

# %% lang="ko" slide="subslide"
llama, a100 = long_context.LLAMA_2_7B, long_context.A100_80GB
steps = {"프리필, 토큰 2048개": long_context.step_cost(llama, new_tokens=2048),
         "디코드, 배치 1": long_context.step_cost(llama, new_tokens=1, context=2048),
         "디코드, 배치 64": long_context.step_cost(llama, new_tokens=1, context=2048, batch=64)}
limits = {"compute": "계산에 묶임", "memory": "메모리에 묶임"}   # A100에서 이 스텝을 묶는 한계
for name, cost in steps.items():    # FLOPs, 읽는 바이트, 산술 강도, A100에서의 최소 시간과 한계
    print(f"{name:14s} {cost.flops / 1e9:8.1f} GFLOP  {cost.bytes_read / 1e9:6.1f} GB  "
          f"{cost.intensity:7.1f} FLOP/B  {cost.seconds(a100) * 1000:6.1f} ms  "
          f"{limits[cost.bound(a100)]}")
ax = qk.plots.plot_roofline(a100, steps)

# %% lang="en"
llama, a100 = long_context.LLAMA_2_7B, long_context.A100_80GB
steps = {"prefill, 2048 tokens": long_context.step_cost(llama, new_tokens=2048),
         "decode, batch 1": long_context.step_cost(llama, new_tokens=1, context=2048),
         "decode, batch 64": long_context.step_cost(llama, new_tokens=1, context=2048, batch=64)}
limits = {"compute": "compute", "memory": "memory"}   # what bounds the step on an A100
for name, cost in steps.items():    # FLOPs, bytes read, arithmetic intensity, least time, limit
    print(f"{name:20s} {cost.flops / 1e9:8.1f} GFLOP  {cost.bytes_read / 1e9:6.1f} GB  "
          f"{cost.intensity:7.1f} FLOP/B  {cost.seconds(a100) * 1000:6.1f} ms  "
          f"{limits[cost.bound(a100)]}")
ax = qk.plots.plot_roofline(a100, steps)

# %% [markdown] lang="ko" slide="subslide"
# 배치 64로 디코드해도 강도는 64배가 되지 않았어요. 요청마다 자기 KV 캐시(2048토큰)를 읽어야 하는데, 이건 나눠 쓸 수 없으니까요. 여기서 3–5절이 다시 등장해요. GQA, 슬라이딩 윈도, 페이지 캐시는 모두 디코드 때 읽는 캐시 바이트를 줄이거나, 같은 메모리에 더 큰 배치를 담게 해 줘요.

# %% [markdown] lang="en"
# The batch-64 decode did not gain the full factor of 64: every request must also read its own KV cache (2048 tokens), which cannot be shared. This is where sections 3–5 come back: GQA, sliding windows and paged caches all cut the cache bytes a decode step reads, or fit a larger batch into the same memory.

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 일반 어텐션의 메모리와 시간은 n²에 비례해서 늘어요(로그-로그 그래프에서 잰 메모리 기울기 약 2). n = 4096이면 헤드 하나의 점수 행렬만 64 MiB예요.
# - 온라인 소프트맥스는 행마다 최댓값 m, 지수 합 l, 출력 분자 o만 들고 다니며, 최댓값이 커지면 exp(m_old − m_new)를 곱해 맞춰요. m과 l을 들고 다니는 온라인 소프트맥스는 FlashAttention보다 먼저 나왔어요. Milakov & Gimelshein(2018)이 냈고, Rabe & Staats(2021)가 o까지 더해 어텐션에 썼어요. 타일 어텐션은 일반 어텐션과 같은 출력을 (n, n) 어텐션 가중치 없이 내요. n = 4096, d = 64에서 최대 메모리가 약 31분의 1이에요. 이 배율은 약 n/(2d)라서 n과 d에 따라 달라져요. 일반 어텐션은 n²개의 점수를, 타일 어텐션은 2·n·d개(출력과 q의 복사본)를 들고 있으니까요.
# - 순전파의 FLOPs는 똑같아요. 학습에서는 역전파 때 Q·Kᵀ를 다시 계산해서 FLOPs가 오히려 늘어요. FlashAttention이 아끼는 건 계산이 아니라 n² 크기의 메모리 왕복이에요. 인과 마스크가 통째로 가린 타일은 건너뛰어서 절반 가까이 아껴요.
# - GQA/MQA는 쿼리 헤드 여러 개가 KV 헤드 하나를 나눠 써서 KV 캐시를 그룹 크기분의 1로 줄여요. 다만 그렇게 학습하거나 업트레이닝한 모델이어야 해요.
# - 슬라이딩 윈도는 캐시 크기에 상한을 두고, 레이어를 쌓으면 이론상 L·(window − 1) + 1칸까지 닿을 수 있어요.
# - 페이지 KV 캐시는 고정 크기 블록과 블록 표로 메모리를 나눠 써서, vLLM 이전처럼 요청마다 max_len을 잡는 낭비(여기서 약 절반)를 블록 끝의 빈자리(1% 미만)로 줄여요.
# - 디코드는 토큰 하나를 위해 매개변수 전체를 읽어서 산술 강도가 약 1이에요. 메모리 대역폭에 묶이고, 배치가 강도를 올려요.
#
# 12강의 위치 인코딩과 이번 시간에 본 기법들이, 실제 모델이 긴 문맥을 다룰 때 쓰는 도구예요. 다음 강에서는 이 어텐션이 어떻게 학습되는지 직접 지켜봐요. 전체를 다시 훑어보고 싶다면 10강 복습으로, KV 캐시를 다시 재 보고 싶다면 09강으로 가세요.
#
# [다음: 14. 어텐션이 배우는 걸 지켜보기 →](14_watch_attention_learn.ipynb) · [10. 복습으로](10_review.ipynb) · [09. KV 캐시 다시 보기](09_kv_cache.ipynb) · [처음으로: 00. 여기서 시작하세요](00_start_here.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - Plain attention's memory and time grow with n² (measured memory slope about 2). At n = 4096 one head's score matrix alone takes 64 MiB.
# - The online softmax carries per row a maximum m, a sum of exponentials l and an output numerator o, rescaling by exp(m_old − m_new) when the maximum grows. The online normaliser (m, l) predates FlashAttention (Milakov & Gimelshein, 2018; applied to attention, with o, by Rabe & Staats, 2021). Tiled attention gives plain attention's output without the weight matrix: at n = 4096, d = 64 its peak memory is about 31× smaller, a factor of about n/(2d) that depends on n and d (plain attention holds the n² scores, tiled attention 2·n·d floats: its output and a copy of q).
# - The forward FLOPs are the same; in training the backward pass recomputes Q·Kᵀ, so there are more. FlashAttention saves the n²-sized memory round trips, not arithmetic. Skipping the tiles the causal mask hides entirely saves nearly half.
# - GQA/MQA let several query heads share one K/V head, shrinking the KV cache to 1/(group size); the model must be trained or uptrained that way.
# - A sliding window bounds the cache; stacked layers can in theory reach L·(window − 1) + 1 positions.
# - A paged KV cache shares memory in fixed-size blocks through block tables, cutting the waste of reserving max_len per request, as servers did before vLLM (about half here), to the empty ends of blocks (under 1%).
# - Decoding reads every weight for a single token, an arithmetic intensity of about 1: it is bound by memory bandwidth, and batching raises the intensity.
#
# With lesson 12's positions, these are the ways real models handle long contexts. The next lesson watches this attention being learned. For a look back over everything, go to the review in lesson 10; to measure the KV cache again, lesson 09.
#
# [Next: 14. Watch attention learn →](14_watch_attention_learn.ipynb) · [10. Review](10_review.ipynb) · [Revisit 09. The KV cache](09_kv_cache.ipynb) · [Back to the start: 00. Start here](00_start_here.ipynb)
