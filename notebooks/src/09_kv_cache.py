# Lesson 09's source: make notebooks LESSON=09 builds notebooks/{ko,en}/09_kv_cache.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 09. KV 캐시: 메모리를 써서 계산을 아껴요
#
# **이번 시간의 목표**
# - 자기회귀 디코딩에서 캐시가 없으면 무엇을 다시 계산하는지 확인해요. 캐시가 있으면 새 토큰 하나만 계산해요. 그 토큰의 쿼리, 키, 밸류를 계산하고, 앞 토큰들의 K, V는 캐시에서 읽어요. 쿼리는 캐시하지 않아요.
# - 캐시를 쓰든 안 쓰든 출력이 같다는 걸 봐요.
# - 스텝마다, 그리고 전체로 FLOPs(부동소수점 연산 수)를 세어 보고, 캐시가 없을 때와 있을 때의 FLOPs 비율이 어떤 식이 되는지 구해 봐요.
# - 스텝 하나의 시간을 문맥 길이에 따라 재서 이론과 비교하고, 왜 차이가 나는지(스텝마다 드는 고정 비용, 즉 오버헤드) 알아봐요.
# - 캐시의 메모리를 재서 공식 `2 · 레이어 · KV 헤드 · head_dim · 토큰 · 배치 · 값당 바이트`와 같은지 확인해요. 캐시는 스텝 사이에 메모리를 **더 써서** 계산을 아껴요. 스텝 하나가 계산하는 동안 잡는 메모리도 재 봐요.
# - 크로스 어텐션의 K, V는 원문 문장마다 한 번만 계산된다는 걸 확인해요.
#
# **수업 시간**: 약 75분

# %% [markdown] lang="en"
# # 09. The KV cache: spend memory to save compute
#
# **Goals for this lesson**
# - See what autoregressive decoding recomputes without a cache. With one, only the new token's query, key and value are computed; the earlier tokens' K and V are read from the cache. Queries are not cached.
# - See that the outputs are the same with and without the cache.
# - Count the FLOPs without and with the cache, step by step and in total, and derive the formula for their ratio.
# - Time one step against the context length, set it against the theory, and see why they differ: per-step overhead.
# - Measure the cache's memory against the formula `2 · layers · kv_heads · head_dim · tokens · batch · bytes_per_value`. The cache **costs** memory kept between steps to save compute; measure too what one step allocates while it runs.
# - Confirm that cross-attention's K and V are computed once per source sentence.
#
# **Class time**: about 75 minutes

# %% slide="skip"
import os

# ko: numpy를 불러오기 전에 BLAS가 스레드 하나만 쓰게 해요(시간을 더 일정하게 재려고)
# en: before numpy: one BLAS thread, for steadier timings
os.environ.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
import numpy as np
import qkv_helpers as qk
from qkv_helpers.kv_cache import arithmetic
from qkv_helpers.measure import kv_cache_experiments

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=2, suppress=True)
# en: 7 words, d_model 16, 4 heads of dimension 4, 2 layers
model = kv_cache_experiments.lesson_model()        # ko: 단어 7개, d_model 16, 차원 4인 헤드 4개, 레이어 2개
prompt = kv_cache_experiments.to_ids("The cat sat")         # ko: 단어 → 토큰 id
                                                   # en: words → token ids

# %% [markdown] lang="ko" slide="slide"
# ## 한 토큰씩 생성하기
#
# 07강에서 본 것처럼 디코더는 **자기회귀 디코딩**으로 문장을 만들어요. 지금까지의 토큰을 넣고, 다음 토큰 하나를 고르고, 그걸 붙여서 다시 넣어요.
#
# 여기서 쓰는 `model`은 패키지의 작은 트랜스포머 디코더 `TinyTransformer`예요. 어휘는 예제 문장의 토큰 7개(The, cat, sat, on, the, mat, .)뿐이고, 매개변수는 학습하지 않은 무작위 값이에요. 그래서 이어지는 단어에는 뜻이 없어요. 오늘 보고 싶은 건 **무엇을, 얼마나 계산하는지**니까 괜찮아요. "The cat sat"에서 시작해서 토큰 8개를 생성해 봐요.

# %% [markdown] lang="en"
# ## Generating one token at a time
#
# As lesson 07 showed, a decoder writes a sentence by **autoregressive decoding**: feed the tokens so far, pick the next token, append it, feed again.
#
# The `model` here is the package's small Transformer decoder, `TinyTransformer`. Its vocabulary is the 7 tokens of our sentence (The, cat, sat, on, the, mat, .), and its weights are random, not trained, so the words it writes mean nothing. That is fine: today we care about **what is computed, and how much**. Start from "The cat sat" and generate 8 tokens.

# %%
cached = model.generate(prompt, 8)                     # ko: KV 캐시 사용 (기본값)
                                                       # en: with the KV cache (the default)
print(kv_cache_experiments.to_words(prompt), "→", kv_cache_experiments.to_words(cached.ids))

# %% [markdown] lang="ko" slide="slide"
# ## 캐시가 없으면 무엇을 다시 계산할까요
#
# 캐시가 없으면 스텝마다 **지금까지의 문장 전체**를 디코더에 다시 넣어요. 그러면 모든 레이어에서 앞 토큰들의 K와 V를 처음부터 다시 계산해요. 07강의 실험에서 봤듯이 앞 토큰의 K와 V는 뒤에 토큰이 붙어도 바뀌지 않는데도요.
#
# 캐시가 있으면 처음 스텝에서만 프롬프트 전체를 넣고, 그다음부터는 **새 토큰 하나**만 넣어요. 새 토큰의 K와 V는 계산해서 캐시에 덧붙이고, 새 토큰의 쿼리는 캐시에 있는 모든 K, V를 봐요.
#
# 스텝마다 디코더에 넣은 토큰 수를 비교해 봐요.

# %% [markdown] lang="en"
# ## What is recomputed without a cache?
#
# Without a cache, every step feeds **the whole sentence so far** into the decoder again, so every layer recomputes the K and V of all earlier tokens from scratch, although, as lesson 07's experiment showed, they do not change when tokens are appended.
#
# With a cache, only the first step feeds the whole prompt; after that, each step feeds **the new token alone**. Its K and V are computed and appended to the cache, and its query attends over every K and V in the cache.
#
# Compare how many tokens each step runs through the decoder.

# %%
uncached = model.generate(prompt, 8, use_cache=False)   # ko: 스텝마다 전체를 다시 계산
                                                        # en: recompute everything at each step
# en: tokens run through the decoder per step: cached
print([s.new_tokens for s in cached.steps])             # ko: 스텝마다 디코더에 넣은 토큰 수: 캐시 사용
print([s.new_tokens for s in uncached.steps])           # ko: 캐시 없음
                                                        # en: uncached

# %% [markdown] lang="ko" slide="subslide"
# ## 쿼리는 캐시하지 않아요
#
# 왜 **K와 V만** 저장할까요? 다음 토큰은 마지막 위치의 출력 하나로 골라요. 그 출력 행은 **마지막 토큰의 쿼리 하나**와 **모든 토큰의 K, V**로 계산해요. 앞 토큰들의 쿼리는 다시 쓸 일이 없어요.
#
# 예제 문장으로 확인해요. 인과 마스크로 7행을 한꺼번에 계산한 출력의 마지막 행은, 마지막 쿼리 하나만으로 계산한 것과 같아요. 하지만 K, V를 최근 3개만 쓰면 달라져요.

# %% [markdown] lang="en"
# ## Queries are not cached
#
# Why keep **only K and V**? The next token is chosen from the last position's output alone, and that output row is computed from **the last token's query** and **every token's K and V**. Earlier queries are never used again.
#
# Check it on our sentence: the last row of the masked output of all 7 rows equals the output of the last query alone. Use only the 3 most recent keys and values, though, and it differs.

# %%
ex = qk.running_example()
full = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v, mask=qk.causal_mask(7)).output
last = qk.scaled_dot_product_attention(ex.q[-1:], ex.k, ex.v).output      # ko: 마지막 쿼리 하나만
                                                                          # en: the last query alone
# en: earlier queries are not needed
print(np.allclose(full[-1:], last))                                       # ko: 앞 쿼리는 필요 없어요
short = qk.scaled_dot_product_attention(ex.q[-1:], ex.k[-3:], ex.v[-3:]).output
print(np.allclose(full[-1:], short))                                      # ko: K, V는 모두 필요해요
                                                              # en: every K and V is needed

# %% [markdown] lang="ko" slide="slide"
# ## 캐시를 써도 답은 같아요
#
# 캐시는 계산을 **건너뛰는** 게 아니라, 이미 계산한 값을 **다시 쓰는** 거예요. 그러니 반올림 오차 없이 계산한다면 출력이 완전히 같아요. 부동소수점에서는 더하는 순서가 달라서 로짓(다음 토큰의 점수)이 반올림만큼 달라지고, 두 후보가 거의 같은 점수일 때는 고르는 토큰이 바뀔 수도 있어요. 여기서 쓰는 프롬프트들에서는 생성한 토큰이 모두 같아요. 프롬프트 몇 개로 토큰을 20개씩 생성해서 비교해 봐요.

# %% [markdown] lang="en"
# ## Same answers with the cache
#
# A cache does not **skip** computation; it **reuses** values already computed. So in exact arithmetic the outputs are the same. In floating point the logits (the next token's scores) differ by rounding, because the sums run in a different order, which could flip a near-tie between two tokens; here, every generated token is the same. Compare 20 generated tokens for a few prompts.

# %%
print(np.array_equal(cached.ids, uncached.ids), np.allclose(cached.logits, uncached.logits,
                                                            atol=1e-4))
prompts = [[0], [1, 2], [3, 4, 5, 6]]
print(all(np.array_equal(model.generate(p, 20).ids, model.generate(p, 20, use_cache=False).ids)
          for p in prompts))                            # ko: 프롬프트가 달라도 같아요
                                                        # en: the same for other prompts too

# %% [markdown] lang="ko" slide="slide"
# ## FLOPs 세기: 스텝마다
#
# 행렬 곱 (m, k)·(k, n)은 곱셈과 덧셈이 m·k·n번씩이라 **2·m·k·n FLOPs**로 계산해요. 디코더 레이어 하나가 새 토큰 n개를 계산하고, 그 쿼리들이 키 c개를 볼 때 (d = d_model):
#
# - 선형 변환 W_Q, W_K, W_V와 멀티헤드의 출력 행렬 W_O(06강), 행렬 네 개: 8·n·d²
# - 어텐션 q·kᵀ와 가중치·v: 4·n·d·c
# - 피드포워드 네트워크: 4·n·d·d_ff. 디코더 레이어에는 어텐션 뒤에, 토큰마다 따로 적용하는 작은 신경망(행렬 곱 두 번)이 있어요. 가운데 벡터의 크기가 d_ff예요. 어텐션을 둘러싼 이 블록은 11강에서 자세히 봐요.
#
# 스텝 t(지금까지 토큰 t개)에서 캐시가 없으면 n = c = t, 캐시가 있으면 n = 1, c = t예요. 식에 넣으면 캐시 없는 스텝은 레이어마다 **정확히 t배**의 일을 해요(행렬 곱의 FLOPs만 세고, 이 모델처럼 t × t개의 점수를 모두 계산할 때예요). 마지막의 로짓 계산(2·d·어휘 크기)만 양쪽이 같아요.
#
# `arithmetic.decoding_flops`가 이 공식이에요. 모델이 실제로 센 FLOPs와 같은지, 그리고 비율이 t에 가까운지 봐요.

# %% [markdown] lang="en"
# ## Counting FLOPs, step by step
#
# A matrix product (m, k)·(k, n) does m·k·n multiplications and as many additions: **2·m·k·n FLOPs**. One decoder layer running n new tokens whose queries attend over c keys does (d = d_model):
#
# - the projections W_Q, W_K, W_V and multi-head attention's output matrix W_O (lesson 06), four matrices: 8·n·d²
# - attention, q·kᵀ and weights·v: 4·n·d·c
# - the feed-forward network: 4·n·d·d_ff. After attention, a decoder layer applies a small neural network (two matrix products) to each token on its own; its middle vector has size d_ff. Lesson 11 looks at this block in detail.
#
# At step t (t tokens so far), without a cache n = c = t; with one, n = 1 and c = t. Put them in the formula: without the cache a step does **exactly t times** the work in every layer (counting matrix-product FLOPs only, and all t × t scores, as this model does). Only the final logits (2·d·vocabulary) cost the same both ways.
#
# `arithmetic.decoding_flops` is this formula. Check it against the FLOPs the model counted, and that the ratio is close to t.

# %% slide="subslide"
sizes = dict(d_model=model.d_model, n_layers=model.n_layers, vocab_size=model.vocab_size)
# en: 3 prompt tokens, 8 new ones
flops_cached = arithmetic.decoding_flops(3, 8, **sizes)                      # ko: 프롬프트 3토큰, 새 토큰 8개
flops_uncached = arithmetic.decoding_flops(3, 8, use_cache=False, **sizes)
print(flops_cached.tolist() == [s.flops for s in cached.steps],
      flops_uncached.tolist() == [s.flops for s in uncached.steps])  # ko: 공식 = 모델이 센 값
                                                                     # en: formula = the model's count
print([s.context for s in cached.steps])                             # ko: t: 지금까지의 토큰 수
                                                                     # en: t: tokens so far
print(flops_uncached / flops_cached)                                 # ko: 비율: 거의 t
                                                                     # en: ratio: close to t

# %% [markdown] lang="ko" slide="subslide"
# 첫 스텝은 양쪽 다 프롬프트 3토큰을 계산하니 비율이 1이에요. 그다음부터 캐시 없는 막대는 스텝마다 자라고, 캐시를 쓴 막대는 거의 그대로예요(어텐션이 볼 키가 하나씩 늘어서 아주 조금씩만 커져요).

# %% [markdown] lang="en"
# The first step runs the 3 prompt tokens either way, so its ratio is 1. After that the uncached bars grow with every step, while the cached ones stay nearly flat (growing a little: attention has one more key each step).

# %%
ax = qk.plots.plot_flops_per_step([s.context for s in cached.steps], flops_cached, flops_uncached)

# %% [markdown] lang="ko" slide="slide"
# ## FLOPs 세기: 전체, 그리고 비율 공식
#
# 이제 토큰 T개를 생성하는 데 드는 FLOPs의 합을 T에 따라 봐요. 시간을 잴 때도 쓸, 조금 더 큰 모델(어휘 256, d_model 128, 레이어 2)과 프롬프트 8토큰으로 계산해요.
#
# 어텐션과 로짓 계산은 빼고, 모든 토큰이 레이어 하나에서 같은 양의 일을 한다고 쳐 봐요. 캐시가 없으면 스텝 i에서 토큰 P + i개를, 캐시가 있으면 첫 스텝에만 P개, 그 뒤로는 1개씩 계산해요. 그래서 비율은 다음과 같아요.
#
# **비율 ≈ (P + (P+1) + … + (P+T−1)) / (P + T − 1) = T·(2P + T − 1) / (2·(P + T − 1))**
#
# 프롬프트가 한 토큰(P = 1)이면 **(T + 1) / 2**예요. 비율이 T에 비례해서 커져요.
#
# 어텐션을 무시해도 되는 건 문맥이 짧을 때뿐이에요. 이 모델처럼 d_ff = 4·d_model이면, 토큰 하나가 레이어 하나에서 쓰는 FLOPs는 선형 변환과 피드포워드 네트워크가 8·d² + 16·d² = 24·d², 어텐션이 4·d·t예요. 그래서 **t ≪ 6·d_model**이면 캐시 없는 전체 FLOPs는 T²에, 캐시를 쓴 전체 FLOPs는 T에 비례해요. 캐시를 써도 새 토큰의 쿼리는 키 t개를 모두 보니까, 문맥이 6·d_model을 넘으면 캐시를 쓴 스텝도 t에 비례해 커지고 전체는 T²에 가까워져요. 이 모델은 6·128 = 768이라, 아래의 T ≤ 256에서는 처음 근사가 잘 맞아요.

# %% [markdown] lang="en"
# ## Counting FLOPs in total, and the formula for the ratio
#
# Now the total FLOPs of generating T tokens, against T. We use a somewhat larger model (vocabulary 256, d_model 128, 2 layers), the one we will also time, and an 8-token prompt.
#
# If every token costs the same in a layer (ignoring attention and logits), step i runs P + i tokens without a cache; with one, the first step runs P and the others 1. So
#
# **ratio ≈ (P + (P+1) + … + (P+T−1)) / (P + T − 1) = T·(2P + T − 1) / (2·(P + T − 1))**
#
# which is **(T + 1) / 2** for a one-token prompt (P = 1). The ratio grows in proportion to T.
#
# Ignoring attention is right only for short contexts. With this model's d_ff = 4·d_model, one token in one layer costs 8·d² + 16·d² = 24·d² FLOPs in the projections and the feed-forward network, and 4·d·t in attention. So **while t ≪ 6·d_model**, the total without a cache grows like T² and with one like T. With the cache the new token's query still reads all t keys: past 6·d_model a cached step grows with t as well, and its total approaches T². For this model 6·128 = 768, so for T ≤ 256 below the first approximation holds well.

# %% slide="subslide"
# en: vocabulary 256, d_model 128, 4 heads, 2 layers
big = kv_cache_experiments.timing_model()          # ko: 어휘 256, d_model 128, 헤드 4개, 레이어 2개
big_sizes, prompt8 = dict(d_model=128, n_layers=2, vocab_size=256), list(range(8))
lengths = np.array([16, 32, 64, 128, 256])
total_cached = np.array([arithmetic.decoding_flops(8, T, **big_sizes).sum() for T in lengths])
total_uncached = np.array([arithmetic.decoding_flops(8, T, use_cache=False,
                                                  **big_sizes).sum() for T in lengths])
# en: formula = counted by the model
print(big.generate(prompt8, 16).flops == total_cached[0])            # ko: 공식 = 모델이 센 값
ax = qk.plots.plot_total_flops(lengths, total_cached, total_uncached)

# %% [markdown] lang="ko" slide="subslide"
# 그림에서 캐시를 쓴 선은 바닥에 거의 붙어 있어요. 얼마나 차이 나는지 정확한 비율로 보고, 근사 공식과 나란히 놓아 봐요. 근사 공식이 조금 어긋나는 건 어텐션 비용이 문맥 길이에 따라 늘고, 로짓 비용은 양쪽이 같기 때문이에요. 그래도 T에 비례해 커진다는 모양은 같아요.

# %% [markdown] lang="en"
# In the picture the cached line nearly hugs the bottom. Here is the exact ratio, beside the approximate formula. They differ a little because the attention's cost grows with the context and the logits cost the same both ways; but both grow in proportion to T.

# %%
print(total_uncached / total_cached)          # ko: 정확한 FLOPs 비율
                                              # en: exact FLOP ratio
print(arithmetic.approx_flop_ratio(8, lengths))       # T·(2P + T − 1) / (2·(P + T − 1)), P = 8

# %% [markdown] lang="ko" slide="slide"
# ## 실제로 재 보기: 스텝 하나의 시간
#
# FLOPs로는 지금까지의 토큰이 t개일 때 캐시 없는 스텝이 t배쯤 일을 해요. 실제 시간을 재 봐요. 문맥 길이 t마다 **스텝 하나**를 캐시를 쓰고, 또 안 쓰고 계산해서 걸린 시간을 재요.
#
# 잰 시간은 작은 일에도 쉽게 달라져요. 그래서 이렇게 재요.
# - BLAS(numpy의 행렬 곱 라이브러리)는 스레드 하나만 써요. 맨 위의 import 셀에서 numpy를 불러오기 전에 정했어요.
# - 재기 전에 한 번씩 돌려서 준비해요(워밍업).
# - 두 가지를 번갈아 다섯 번씩 재고, 가장 빠른 값을 써요. 컴퓨터가 다른 일을 하느라 느려진 실행을 빼려는 거예요.
#
# 시간은 컴퓨터마다, 실행할 때마다 달라요. 그래서 아래 셀들의 숫자와 그림은 여러분 화면에서 조금씩 다를 거예요. 점 하나가 튀면 셀을 다시 실행해 보세요.

# %% [markdown] lang="en"
# ## Measuring it: the time of one step
#
# By FLOPs, with t tokens so far an uncached step does about t times the work. Let's time it: at each context length t, time **one step** with the cache and one without.
#
# Timings are easily disturbed, so:
# - BLAS (numpy's matrix-product library) uses one thread, set in the import cell before numpy was imported;
# - each kind of step runs once before timing starts (a warm-up);
# - the two kinds are timed alternately, five times each, and the fastest run counts: the one least slowed by other work on the computer.
#
# Timings vary between machines and runs, so the next cells' numbers and pictures will differ a little on your screen. If one point jumps, run the cell again.

# %% ignore_output=true
m = kv_cache_experiments.measure_step_times(big, kv_cache_experiments.TIMING_CONTEXTS, repeats=5)
print(m.contexts)                           # ko: t: 지금까지의 토큰 수
                                            # en: t: tokens so far
print((m.seconds_uncached * 1e6).round())   # ko: 캐시 없는 스텝 하나 (µs)
                                            # en: one uncached step (µs)
print((m.seconds_cached * 1e6).round())     # ko: 캐시 쓴 스텝 하나 (µs)
                                            # en: one cached step (µs)

# %% [markdown] lang="ko" slide="subslide"
# 캐시 없는 스텝은 토큰 t개를 모두 계산하니 t에 따라 길어져요. 캐시를 쓴 스텝은 토큰 하나만 계산하니 거의 그대로지만, 조금씩은 길어져요. 새 쿼리가 보는 키가 t개라서요.
#
# 그런데 두 시간의 비율은 FLOPs 비율 t보다 훨씬 작아요. 한 스텝에는 FLOPs와 상관없는 **고정 비용**이 있어요. 파이썬 반복문, 레이어마다 수십 번의 numpy 함수 호출, 작은 배열 만들기 같은 거요. 캐시를 쓴 스텝은 FLOPs가 아주 적어서 시간의 대부분이 이 오버헤드예요.
#
# 그래서 스텝 하나의 시간을 **오버헤드 + FLOPs × FLOP당 시간**으로 놓고, 잰 시간과 가장 잘 맞도록 두 값(오버헤드와 FLOP당 시간)을 정해요. 그렇게 정한 식이 점선이에요. 그림의 두 축은 로그 눈금이라, 0.1 ms와 10 ms가 한 그림에 같이 보여요. 로그 눈금은 눈금 한 칸마다 값이 10배씩 커지는 눈금이에요.

# %% [markdown] lang="en"
# An uncached step runs all t tokens, so it takes longer as t grows. A cached step runs one token and stays nearly flat, growing a little as the new query reads t keys.
#
# Yet the ratio of the two times is far below the FLOP ratio t. Each step has a **fixed cost** that has nothing to do with FLOPs: the Python loop, dozens of numpy calls per layer, small arrays allocated. A cached step does so few FLOPs that most of its time is this overhead.
#
# So model a step's time as **overhead + FLOPs × (time per FLOP)** and fit the two numbers to the measured times. The dotted lines are this model. Both axes are logarithmic, so 0.1 ms and 10 ms fit on one picture.

# %% slide="subslide" ignore_output=true
ax = qk.plots.plot_step_times(m.contexts, m.seconds_cached, m.seconds_uncached,
                              m.fit.seconds(1, m.flops_cached), m.fit.seconds(1, m.flops_uncached))

# %% [markdown] lang="ko" slide="subslide"
# 이제 스텝 하나의 속도 향상(캐시 없는 시간 ÷ 캐시 쓴 시간)을 FLOPs 비율, 그리고 오버헤드 모델이 예측한 값과 함께 봐요. t가 커질수록 캐시 없는 스텝에서는 FLOPs의 몫이 커져서 속도 향상도 커져요. 그래도 FLOPs 비율보다는 한참 아래에 머물러요. 캐시를 쓴 스텝은 시간이 거의 다 오버헤드라서요. 캐시를 쓴 스텝의 FLOPs가 오버헤드보다 커질 만큼 문맥이 길어져야 FLOPs 비율에 다가가요. 세로축은 앞 그림처럼 로그 눈금이에요.
#
# 오버헤드 모델은 대강 맞춘 식이에요. FLOP 하나에 드는 시간이 어떤 연산에서나 같다고 봐요. 그런데 문맥이 길면 캐시를 쓴 스텝은 FLOPs로 어림한 것보다 느려져요. 캐시에 든 K, V t개를 작은 연산 여러 번으로 읽으니까요. 그러면 잰 속도 향상이 점선보다 아래로 내려가요. 반대로 캐시 없는 스텝의 큰 소프트맥스는 FLOPs에 넣지 않았어요. 그 시간만큼 캐시 없는 스텝이 느려지니, 잰 속도 향상은 점선보다 위로 올라갈 수 있어요.

# %% [markdown] lang="en"
# Now the speed-up of one step (time without ÷ time with the cache) beside the FLOP ratio and the overhead model's prediction. As t grows, more of the uncached step is FLOPs and the speed-up grows, but it stays far below the FLOP ratio, because a cached step is almost all overhead. It would approach the FLOP ratio only once a cached step's own FLOPs outweigh the overhead. Its y axis is logarithmic.
#
# The overhead model is rough: it gives every FLOP the same time. At long contexts a cached step reads its t keys and values in many small operations and is slower than its FLOPs say: the measured speed-up falls below the dotted curve. Conversely, the uncached step's big softmax, not counted in the FLOPs, slows it, so the measured speed-up can rise above the curve.

# %% slide="subslide" ignore_output=true
print(m.speedup.round(1), m.flop_ratio.round(1))
ax = qk.plots.plot_speedup(m.contexts, m.speedup, m.flop_ratio, m.predicted,
                           overhead_us=m.fit.overhead * 1e6, per_step=True)

# %% [markdown] lang="ko" slide="subslide"
# 앞에서 정한 두 값을 비교해 봐요. 위는 스텝 하나에 드는 오버헤드, 아래는 t = 16에서 캐시를 쓴 스텝 하나가 FLOPs에 쓰는 시간이에요(둘 다 µs). 오버헤드가 훨씬 커요.
#
# 두 값은 모든 t에 한꺼번에 맞춘 값이에요. 그래서 짧은 문맥에서는 오버헤드가 캐시를 쓴 스텝의 잰 시간보다 조금 크게 나올 수도 있어요. 그런 곳에서는 "디코딩 스텝 하나의 시간" 그림의 파란 점선이 파란 실선보다 위에 있어요.

# %% [markdown] lang="en"
# The fitted numbers (µs): above, the overhead per step; below, the time a cached step at t = 16 spends on its FLOPs. The overhead is much larger.
#
# Both are fitted to every t at once, so at short contexts the overhead can slightly exceed a measured cached step: there the blue dotted line of "Time of one decoding step" lies above the blue solid one.

# %% ignore_output=true
print(round(m.fit.overhead * 1e6))                                  # ko: 스텝 하나의 오버헤드 (µs)
                                                                    # en: overhead per step (µs)
# en: time of a cached step's FLOPs (µs)
print(round(m.flops_cached[0] * m.fit.seconds_per_flop * 1e6, 1))   # ko: 캐시 쓴 스텝의 FLOPs에 드는 시간 (µs)

# %% [markdown] lang="ko" slide="slide"
# ## 메모리: 캐시는 스텝 사이에 메모리를 **써요**
#
# 이 코스가 바탕으로 삼은 글은 "KV 캐싱이 메모리를 줄인다"고 해요. **정확하지 않은 말이에요.** 캐시는 계산을 아끼는 대신 메모리를 써요. 레이어마다, KV 헤드마다, 저장한 토큰마다 키 벡터 하나와 밸류 벡터 하나를 **스텝 사이에도** 들고 있으니까요.
#
# **캐시 바이트 = 2 · 레이어 · KV 헤드 · head_dim · 토큰 · 배치(동시에 처리하는 문장 수) · 값당 바이트**
#
# 맨 앞의 2는 K와 V예요. 토큰 수가 곱해져 있으니 캐시는 토큰 수에 **비례해서** 커져요. 캐시를 써서 토큰 20개를 생성하면서 스텝마다 두 가지를 재요.
# - **사용 중인 바이트**(`nbytes`): 지금 저장된 토큰들의 K, V. 공식과 같아야 해요.
# - **미리 잡아 둔 바이트**(`allocated_nbytes`): `generate`는 첫 스텝 전에 프롬프트 + 생성할 토큰 수만큼의 자리를 한꺼번에 잡아요. 프로그램이 실제로 차지하는 건 이쪽이에요.
#
# 캐시를 안 쓰면 스텝 사이에 남겨 두는 게 없어요(0바이트).

# %% [markdown] lang="en"
# ## Memory: the cache **costs** memory between steps
#
# The article this course grows from says "KV caching reduces memory". **That is not accurate.** The cache saves compute by spending memory: it holds a key vector and a value vector for every layer, every KV head and every token kept, **between steps**.
#
# **cache bytes = 2 · layers · kv_heads · head_dim · tokens · batch (sentences processed at once) · bytes_per_value**
#
# The 2 is for K and V. Tokens are a factor, so the cache grows **linearly** with them. Generate 20 tokens with the cache and measure two things after every step:
# - **bytes in use** (`nbytes`): the K and V of the tokens kept so far, which should equal the formula;
# - **bytes reserved** (`allocated_nbytes`): `generate` reserves room for the prompt and every token to come, all at once before the first step: what the program actually holds.
#
# Without a cache nothing is kept between steps (0 bytes).

# %% slide="subslide"
# ko: 스텝마다: 캐시의 토큰 수, 사용 중인 바이트, 잡아 둔 바이트
# en: after each step: tokens cached, bytes in use, bytes reserved
mem = kv_cache_experiments.cache_memory(model, prompt, 20)
formula = [arithmetic.kv_cache_bytes(layers=2, kv_heads=4, head_dim=4, tokens=n, batch=1,
                                  bytes_per_value=4) for n in mem.tokens]
# ko: 공식과 같고, 토큰마다 같은 양씩 늘어요
# en: equal to the formula; the same amount per token
print(mem.used_nbytes.tolist() == formula, np.unique(np.diff(mem.used_nbytes)))
# ko: 잡아 둔 바이트: 처음부터 23토큰분
# en: bytes reserved: 23 tokens' worth from the start
print(np.unique(mem.allocated_nbytes), arithmetic.kv_cache_bytes(2, 4, 4, 3 + 20, 1, 4))
nothing_kept = [s.cache_bytes for s in model.generate(prompt, 20, use_cache=False).steps]
ax = qk.plots.plot_cache_growth(mem.tokens, mem.used_nbytes, formula, uncached_bytes=nothing_kept,
                                allocated_bytes=mem.allocated_nbytes)

# %% [markdown] lang="ko" slide="subslide"
# 사용 중인 바이트는 토큰 하나에 256바이트(2 · 2 · 4 · 4 · float32의 4바이트)씩 직선으로 늘어요. 잡아 둔 바이트는 처음부터 끝까지 평평해요. 그 차이는 아직 쓰지 않은 자리예요. 생성이 일찍 끝나면(문장 끝 토큰이 나오면) 끝까지 안 쓰는 자리이기도 해요. 모델 하나로 많은 사용자의 요청에 한꺼번에 답할 때(이걸 서빙이라고 해요) 이 낭비가 쌓여요. 13강에서 만들 페이지 KV 캐시(vLLM의 PagedAttention)는 작은 블록을 필요할 때마다 잡아서, 이 낭비를 요청마다 덜 찬 블록 하나 이하로 줄여요.
#
# **계산 예: Llama-2-7B.** 레이어 32개, KV 헤드 32개, head_dim 128이고, 값은 fp16(16비트 부동소수점, 값 하나에 2바이트)이에요. 문장(시퀀스) 하나에 토큰 4096개를 저장하면 정확히 **2 GiB**예요(1 GiB = 1024³바이트, 1 MiB = 1024²바이트). 토큰 하나에 0.5 MiB(= 512 KiB, 1 KiB = 1024바이트)씩이에요. 대화 8개를 동시에 처리하면(배치 8) 16 GiB로, fp16으로 저장한 모델의 매개변수(67억 개 × 2바이트 ≈ 12.55 GiB)보다 커요.

# %% [markdown] lang="en"
# The bytes in use grow on a straight line, 256 per token (2 · 2 · 4 · 4 · 4 bytes of float32). The bytes reserved are flat from the first step to the last; the gap is room not used yet, and never used if generation stops early (an end-of-sentence token). Serving many requests at once, this waste adds up; the paged KV cache that lesson 13 builds (vLLM's PagedAttention) cuts it to at most one partly filled block per request by reserving small blocks as needed.
#
# **Worked example: Llama-2-7B.** 32 layers, 32 KV heads, head_dim 128, values in fp16 (2 bytes). Keeping 4096 tokens of one sequence takes exactly **2 GiB**: half a MiB (= 512 KiB, 1 KiB = 1024 bytes) per token. Serving 8 conversations at once (batch 8) takes 16 GiB, more than the model's parameters in fp16 (6.7 billion × 2 bytes ≈ 12.55 GiB).

# %%
llama = arithmetic.kv_cache_bytes(layers=32, kv_heads=32, head_dim=128, tokens=4096, batch=1,
                               bytes_per_value=2)
# ko: 시퀀스 하나, 토큰 하나
# en: one sequence, one token
print(llama, arithmetic.format_bytes(llama), arithmetic.format_bytes(llama // 4096))
# ko: 배치 8의 캐시, fp16으로 저장한 매개변수
# en: cache of a batch of 8, the parameters in fp16
print(arithmetic.format_bytes(8 * llama), arithmetic.format_bytes(6_738_415_616 * 2))

# %% [markdown] lang="ko" slide="subslide"
# ## 스텝 하나가 계산하는 동안의 메모리
#
# 캐시가 더 쓰는 건 **스텝 사이에 남겨 두는** 메모리예요. 스텝 하나가 **계산하는 동안**에는 사정이 달라요. 캐시 없는 스텝은 토큰 t개의 활성값(레이어가 계산하는 중간 결과 벡터)과 레이어마다 (헤드, t, t) 점수 행렬을 새로 만들어요. 캐시를 쓴 스텝은 토큰 하나의 활성값과 (헤드, 1, t) 점수만 만들어요.
#
# 파이썬의 `tracemalloc`으로 스텝 하나가 잡는 메모리의 최댓값을 재 봐요(numpy 배열이 쓰는 메모리도 함께 세어 줘요). 작은 `model`로, 문맥 길이 t마다 재요.

# %% [markdown] lang="en"
# ## Memory while one step runs
#
# What the cache adds is memory **kept between steps**. **While a step runs** the picture differs: an uncached step builds the activations of all t tokens and, in every layer, a (heads, t, t) score matrix; a cached step builds one token's activations and (heads, 1, t) scores.
#
# Measure the peak memory one step allocates with Python's `tracemalloc` (it sees numpy's arrays too), on the small `model`, at several context lengths t.

# %% slide="subslide" ignore_output=true
steps_mem = kv_cache_experiments.step_memory(model, [8, 15, 30, 60, 120])
print(steps_mem.peak_uncached // 1000)    # ko: 캐시 없는 스텝이 계산하는 동안의 최대 (KB)
                                          # en: peak while an uncached step runs (KB)
print(steps_mem.peak_cached // 1000)      # ko: 캐시 쓴 스텝이 계산하는 동안의 최대 (KB)
                                          # en: peak while a cached step runs (KB)
print(steps_mem.cache_nbytes // 1000)     # ko: 캐시 쓴 스텝이 스텝 사이에 들고 있는 캐시 (KB)
                                          # en: the cache a cached step keeps between steps (KB)
ax = qk.plots.plot_step_memory(steps_mem.contexts, steps_mem.peak_uncached, steps_mem.peak_cached,
                               steps_mem.cache_nbytes)

# %% [markdown] lang="ko" slide="subslide"
# 이 작은 모델에서는 위에서 잰 가장 짧은 문맥(8토큰)부터 벌써, 캐시 없는 스텝의 최대 메모리가 캐시를 쓴 스텝의 최대 메모리와 캐시를 합한 것보다도 커요(첫 줄이 둘째 줄과 셋째 줄의 합보다 커요). 그러니 "캐시는 메모리를 늘리기만 한다"도 정확한 말은 아니에요. 정확히 말하면 이래요.
#
# - 캐시는 **스텝 사이에 남겨 두는** 메모리를 `2 · 레이어 · KV 헤드 · head_dim · 토큰 · 배치 · 값당 바이트`만큼 더해요.
# - 캐시 없는 스텝의 점수 행렬 같은 레이어별 중간 결과는 레이어 하나를 계산하는 동안만 있다가 사라져요. 토큰 t개의 은닉 상태(레이어 사이를 지나가는 토큰별 벡터)는 스텝이 끝날 때까지 있어요. 실제 추론 코드는 (헤드, t, t) 행렬을 통째로 만들지도 않아요(13강에서 볼 타일 어텐션).
# - 실제 대형 언어 모델(LLM)에서 캐시와 매개변수 중 어느 쪽이 더 큰지는 배치 × 문맥 길이에 달려 있어요. 위의 Llama-2-7B는 4096토큰, 배치 1에서 캐시가 2 GiB로 매개변수 12.55 GiB보다 훨씬 작아요. 12.55 / 2 ≈ 6.3이니 배치 7부터 캐시가 더 커져요. vLLM 논문의 13B 모델 예에서는 매개변수가 메모리의 65%, KV 캐시가 30% 넘게 차지해요. 캐시가 이만큼 커지는 건 요청을 많이 모아 한꺼번에 처리하는 서버에서예요. 캐시는 메모리를 내주고 계산을 얻는 거래예요.

# %% [markdown] lang="en"
# For this small model, already at the shortest context measured above (8 tokens), the peak of an uncached step is larger even than a cached step's peak plus its cache (the first row is larger than the sum of the second and third). So "the cache only adds memory" is not accurate either. Precisely:
#
# - the cache adds memory **kept between steps**: `2 · layers · kv_heads · head_dim · tokens · batch · bytes_per_value`;
# - an uncached step's per-layer intermediates, such as the scores, live only while one layer runs (the t tokens' hidden states, the per-token vectors passed between layers, live for the step), and real inference code does not even build the whole (heads, t, t) matrix (tiled attention, coming in lesson 13);
# - whether the cache or the parameters take more memory in a real LLM depends on batch × context. Llama-2-7B above, at 4096 tokens and batch 1, has a 2 GiB cache against 12.55 GiB of parameters; 12.55 / 2 ≈ 6.3, so the cache is larger only from batch 7 on. In the vLLM paper's 13B example the parameters take 65% of the memory and the KV cache over 30%: servers batching many requests are where the cache grows. The cache trades memory for compute.

# %% [markdown] lang="ko" slide="subslide"
# ## 캐시를 줄이는 방법
#
# 그럼 캐시를 작게 하려면 어떻게 할까요? 공식에서 곱해지는 값 중 하나를 줄이면 돼요. 그런데 그 값들은 대부분 **모델을 학습할 때** 정해져요.
#
# - **KV 헤드 수 줄이기**: 멀티쿼리 어텐션(MQA)은 모든 쿼리 헤드가 KV 헤드 **하나**를 같이 쓰고, 그룹 쿼리 어텐션(GQA)은 쿼리 헤드 몇 개가 KV 헤드 하나를 같이 써요. Llama-2-70B는 쿼리 헤드 64개에 KV 헤드 8개로 학습했어요.
# - **슬라이딩 윈도**: 최근 토큰 몇 개만 보도록 학습한 모델(Mistral 7B v0.1은 4096토큰, v0.2부터는 윈도 없음)은 그만큼만 저장하면 돼요. 캐시는 윈도 크기보다 커지지 않아요.
# - **낮은 정밀도**: 값을 fp16 대신 int8(1바이트) 등으로 저장해요. 실제로는 값을 되돌릴 배율도 조금 저장해서, 정확히 절반보다는 살짝 커요(학습이 끝난 뒤에도 쓸 수 있어요. 아래 KV 양자화).
#
# 앞의 둘은 보통 학습할 때 정해요. 학습이 끝난 모델에 쓸 수 있는 방법도 있어요. 다만 모두 출력을 조금씩 바꿔요.
#
# - **KV 양자화**: 학습된 모델에 바로 쓸 수 있고, 정확도를 조금 잃어요.
# - **캐시에서 토큰 빼기**: StreamingLLM(Xiao 외, 2023)은 추가 학습 없이 맨 앞 토큰 몇 개와 최근 윈도만 캐시에 남겨요. 맨 앞 토큰은 어텐션 가중치가 많이 몰리는 자리(어텐션 싱크라고 해요. 11강에서 진짜 모델로 확인해요)라서 빼면 출력이 크게 망가지거든요.
# - **업트레이닝**: 멀티헤드로 학습한 모델의 KV 헤드를 합친 뒤 조금 더 학습해 GQA로 바꿔요. 처음에 모델을 학습할 때(사전 학습) 든 계산량의 5% 정도가 들어요(Ainslie 외, 2023. 13강에서 다시 봐요).
#
# Llama-2-7B는 KV 헤드 32개로 학습해서, GQA를 나중에 그냥 적용할 수는 없어요(업트레이닝이 필요해요). 슬라이딩 윈도도 그냥 적용할 수 없어요. 맨 앞 토큰이 캐시에서 빠지는 순간 출력이 무너지거든요(StreamingLLM). 그 맨 앞 토큰을 싱크로 남겨 두어야 다시 학습하지 않고도 윈도를 쓸 수 있어요. 그래도 윈도 밖의 토큰은 다시 볼 수 없어요. 공식으로 각각 얼마가 되는지 봐요. 아래 출력의 처음 세 줄은 처음부터 그렇게 학습한 모델일 때의 크기예요. 마지막 줄(int8)은 학습이 끝난 뒤에도 쓸 수 있어요.

# %% [markdown] lang="en"
# ## What makes the cache smaller
#
# How do you shrink the cache, then? Shrink a factor of the formula; but most factors are fixed **when the model is trained**:
#
# - **Fewer KV heads**: multi-query attention (MQA) lets every query head share **one** KV head; grouped-query attention (GQA) lets each group of query heads share one. Llama-2-70B was trained with 64 query heads and 8 KV heads.
# - **A sliding window**: a model trained to attend to the most recent tokens only (Mistral 7B v0.1: 4096; v0.2 has no window) need keep only those; its cache stops growing at the window's size.
# - **Lower precision**: store the values as int8 (1 byte) instead of fp16, for instance; real schemes also store scale factors, so it is slightly more than half (this one works after training too: KV quantisation, below).
#
# The first two are usually chosen in training. Some ways do apply after training, and all of them change the outputs a little:
#
# - **KV quantisation** applies to a trained model as it is, with some loss of accuracy;
# - **evicting tokens from the cache**: StreamingLLM (Xiao et al., 2023) keeps only the first few tokens and a recent window, with no fine-tuning: the first tokens draw much of the weight (attention sinks, seen on a real model in lesson 11), and dropping them breaks the outputs;
# - **uptraining**: merge a multi-head model's K/V heads and train it a little more into GQA, for about 5% of the original pre-training compute (Ainslie et al., 2023; lesson 13 comes back to it).
#
# Llama-2-7B was trained with 32 KV heads, so GQA cannot simply be switched on (it needs uptraining), nor can a plain window: once the first tokens leave the cache its outputs collapse (StreamingLLM). Keeping those first tokens as sinks is what makes a window usable without retraining; even then, tokens outside the window cannot be seen again. The formula's sizes for each; the first three lines are for a model trained that way.

# %% slide="subslide"
# ko: KV 헤드 8개로 학습한 모델 (GQA)
# en: a model trained with 8 KV heads (GQA)
print(arithmetic.format_bytes(arithmetic.kv_cache_bytes(32, 8, 128, 4096, 1, 2)))
# ko: KV 헤드 1개로 학습한 모델 (MQA)
# en: a model trained with 1 KV head (MQA)
print(arithmetic.format_bytes(arithmetic.kv_cache_bytes(32, 1, 128, 4096, 1, 2)))
# ko: 윈도 1024토큰으로 학습한 모델
# en: a model trained with a 1024-token window
print(arithmetic.format_bytes(arithmetic.kv_cache_bytes(32, 32, 128, 1024, 1, 2)))
# ko: 학습 뒤에도 가능: int8 양자화, 값당 1바이트
# en: possible after training: int8, 1 byte per value
print(arithmetic.format_bytes(arithmetic.kv_cache_bytes(32, 32, 128, 4096, 1, 1)))

# %% [markdown] lang="ko" slide="slide"
# ## 크로스 어텐션: 인코더의 K, V는 원문마다 한 번
#
# 08강에서 인코더의 K와 V는 디코더 스텝과 상관없이 같다는 걸 봤어요. 번역처럼 원문(source)이 있을 때, 캐시를 쓰면 크로스 어텐션의 K, V를 **첫 스텝에 한 번만** 계산해서 저장해요. 캐시가 없으면 스텝마다 다시 계산하고요.
#
# 이번에는 무작위 모델이 아니라 14강에서 직접 학습시켜 볼 **진짜 번역기**로 해 봐요. 앞에서 쓴 `model`과 같은 `TinyTransformer` 구조라서(레이어 1개, 헤드 1개, d_model 32), 학습한 매개변수를 그대로 쓸 수 있어요(`Translator.as_tiny_transformer`). 이 번역기의 인코더에는 셀프 어텐션이 없어서, 만들어지는 모델에도 그 부분이 없어요. 원문 "the cat sat on the mat"(끝 토큰 &lt;eos&gt;까지 7토큰)을 주고 &lt;bos&gt;에서 시작해 토큰 5개를 생성하면서, 번역 결과와 스텝마다 크로스 어텐션 K, V에 쓴 FLOPs를 봐요. 캐시 바이트에는 이 원문 7토큰의 K, V도 들어가요. 이 번역기는 float64로 계산해서 값 하나가 8바이트예요.

# %% [markdown] lang="en"
# ## Cross-attention: the encoder's K and V once per source sentence
#
# Lesson 08 showed that the encoder's K and V are the same at every decoder step. With a source sentence, as in translation, a cache computes cross-attention's K and V **once, in the first step**, and keeps them; without one, every step computes them again.
#
# This time not with a random model but with the **real translator** you will train yourself in lesson 14. It is a `TinyTransformer` like the `model` above (1 layer, 1 head, d_model 32), so its trained parameters serve as they are (`Translator.as_tiny_transformer`; this translator's encoder has no self-attention, and neither has the model it makes). Give the source "the cat sat on the mat" (7 tokens with the end token &lt;eos&gt;), start from &lt;bos&gt; and generate 5 tokens: look at the translation, and at the FLOPs spent on cross-attention's K and V at each step. The cache's bytes include the K and V of these 7 source tokens too; this translator computes in float64, 8 bytes a value.

# %% slide="subslide"
from qkv_helpers import toy_corpus, translator

# en: the vocabulary of lesson 14: 3 special tokens and the English and Korean words, 92 in all
vocab = toy_corpus.Vocabulary()                   # ko: 14강에서 쓸 어휘: 특수 토큰 3개와 영어·한국어 단어, 모두 92개
# en: the parameters make train wrote
tiny = translator.load_trained()[0].as_tiny_transformer()   # ko: 14강에서 할 학습으로 미리 만들어 둔 매개변수
source = vocab.encode(["the", "cat", "sat", "on", "the", "mat", "<eos>"])
with_cache = tiny.generate([vocab.bos], 5, source_ids=source)
without = tiny.generate([vocab.bos], 5, source_ids=source, use_cache=False)
print(vocab.decode(with_cache.ids), vocab.decode(without.ids))   # ko: 캐시를 쓰든 안 쓰든 같은 번역
                                                                 # en: the same translation either way
print([s.flops_by_part["cross_kv"] for s in with_cache.steps])   # ko: 캐시 사용: 첫 스텝에만
                                                                 # en: cached: in the first step only
print([s.flops_by_part["cross_kv"] for s in without.steps])      # ko: 캐시 없음: 스텝마다
                                                                 # en: uncached: at every step
print(np.array_equal(with_cache.ids, without.ids),
      with_cache.steps[0].cache_bytes == arithmetic.kv_cache_bytes(1, 1, 32, 1 + 7, 1, 8))

# %% [markdown] lang="ko" slide="subslide"
# 첫 스텝이 끝나면 캐시에는 디코더 토큰 1개와 원문 토큰 7개, 모두 8토큰분이 들어 있어요. 이후 디코더 쪽 캐시는 스텝마다 한 토큰씩 늘지만, 원문 쪽은 7토큰에서 그대로예요.

# %% [markdown] lang="en"
# After the first step the cache holds 1 decoder token and 7 source tokens: 8 tokens' worth. From then on the decoder's part grows by a token per step, while the source's part stays at 7 tokens.

# %% [markdown] lang="ko" slide="slide"
# ## 위젯: 다음 토큰
#
# **다음 토큰 ▶** 버튼을 한 번 누를 때마다 캐시를 써서 토큰 하나를 생성해요. 위젯은 프롬프트 "The cat sat"을 이미 계산한 상태로 시작해요.
#
# - 왼쪽 그림은 캐시예요. 행은 (레이어, 헤드), 열은 토큰 위치이고, 색은 저장된 키 벡터의 길이예요. 빗금 칸은 아직 빈 자리예요.
# - 오른쪽 그림은 지금까지의 스텝별 FLOPs예요. 캐시를 쓸 때와 안 쓸 때를 나란히 보여 줘요.
# - 아래 글에는 단어들, 캐시 바이트와 공식, 이번 스텝의 FLOPs가 나와요.
#
# **해 볼 것**
# - 버튼을 다섯 번쯤 눌러 보세요. 그리고 **처음부터**를 눌러 다시 해 보세요.
#
# **눈여겨볼 것**
# - 한 번 누를 때마다 캐시에 열이 **하나씩**, 모든 (레이어, 헤드) 행에 함께 채워져요. 이미 채워진 칸의 색은 바뀌지 않아요. 앞 토큰의 K는 다시 계산하지 않으니까요.
# - 캐시 바이트는 누를 때마다 256바이트씩 늘어요.
# - 캐시를 쓴 막대는 거의 그대로인데, 캐시 없는 막대는 계속 자라요. 둘의 비율은 지금까지의 토큰 수에 가까워요.

# %% [markdown] lang="en"
# ## Widget: the next token
#
# Each click of **next token ▶** generates one token with the cache. The widget starts with the prompt "The cat sat" already run.
#
# - Left: the cache. Rows are (layer, head), columns token positions; the colour is the length of each kept key vector. Hatched cells are still empty.
# - Right: the FLOPs of each step so far, with the cache and without, side by side.
# - Below: the words, the cache's bytes with the formula, and this step's FLOPs.
#
# **Try this**
# - Click the button five times or so, then **reset** and do it again.
#
# **Notice**
# - Each click fills **one** more column of the cache, in every (layer, head) row at once. Cells already filled keep their colour: earlier tokens' keys are not recomputed.
# - The cache's bytes grow by 256 with every click.
# - The cached bars stay nearly flat while the uncached ones keep growing; their ratio is close to the number of tokens so far.

# %% slide="subslide"
qk.widgets.kv_cache_stepper()

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 캐시 크기 예측하기
#
# 이런 모델을 서빙한다고 해 봐요.
#
# - 레이어 32개
# - 쿼리 헤드 32개가 **KV 헤드 8개**를 나눠 써요(GQA). head_dim은 128이에요.
# - 대화 4개를 동시에 처리하고(배치 4), 대화마다 8192토큰을 저장해요.
# - 값은 fp16(값당 2바이트)이에요.
#
# 1. KV 캐시는 모두 몇 **바이트**일까요? 계산식이나 숫자로 `my_bytes`에 적어 보세요.
# 2. (한 걸음 더) 같은 모델에서 대화마다 **12,000토큰**을 저장하고, 캐시에 쓸 수 있는 메모리가 **40 GiB**(1 GiB = 1024³바이트)라면, 대화를 **최대 몇 개**까지 동시에 처리할 수 있을까요? 정수로 `my_batch`에 적어 보세요.

# %% [markdown] lang="en"
# ## Try it: predict the size of a cache
#
# Say you serve this model:
#
# - 32 layers
# - 32 query heads sharing **8 KV heads** (GQA); head_dim is 128
# - 4 conversations at once (batch 4), each keeping 8192 tokens
# - values in fp16 (2 bytes each)
#
# 1. How many **bytes** does its KV cache take? Write a number or an expression in `my_bytes`.
# 2. (A step further) With the same model, each conversation keeping **12,000 tokens** and **40 GiB** (1 GiB = 1024³ bytes) of memory for the cache, how many conversations at **most** can run at once? Write a whole number in `my_batch`.

# %% exercise=true
my_bytes = ...   # ko: 바이트 수
                 # en: a number of bytes
qk.checks.check_kv_cache_bytes(my_bytes, layers=32, kv_heads=8, query_heads=32, head_dim=128,
                               tokens=8192, batch=4, bytes_per_value=2)

# %% solution=true
# en: K and V · layers · kv_heads · head_dim · tokens · batch · bytes
my_bytes = 2 * 32 * 8 * 128 * 8192 * 4 * 2   # ko: K와 V · 레이어 · KV 헤드 · head_dim · 토큰 · 배치 · 바이트
qk.checks.check_kv_cache_bytes(my_bytes, layers=32, kv_heads=8, query_heads=32, head_dim=128,
                               tokens=8192, batch=4, bytes_per_value=2).as_solution()

# %% exercise=true
my_batch = ...   # ko: 40 GiB에 들어가는 대화(12,000토큰)의 최대 개수
                 # en: the most conversations (12,000 tokens each) that fit in 40 GiB
qk.checks.check_max_batch(my_batch, memory_gib=40, layers=32, kv_heads=8, query_heads=32,
                          head_dim=128, tokens=12_000, bytes_per_value=2, earlier_tokens=8192)

# %% solution=true
# en: one conversation's cache in bytes (about 1.46 GiB)
per_conversation = 2 * 32 * 8 * 128 * 12_000 * 2   # ko: 대화 하나의 캐시 바이트 (약 1.46 GiB)
my_batch = 40 * 1024**3 // per_conversation         # ko: 내림: 27.3 → 27
                                                    # en: rounded down: 27.3 → 27
qk.checks.check_max_batch(my_batch, memory_gib=40, layers=32, kv_heads=8, query_heads=32,
                          head_dim=128, tokens=12_000, bytes_per_value=2,
                          earlier_tokens=8192).as_solution()

# %% [markdown] lang="ko" slide="subslide"
# 연습에서 쿼리 헤드가 아니라 KV 헤드로 센 이유를 Llama-2-70B로 확인해 봐요. 쿼리 헤드 64개가 KV 헤드 8개를 나눠 써요(GQA). 캐시에는 KV 헤드만 들어가니까, 쿼리 헤드마다 K, V를 따로 둘 때보다 캐시가 8배 작아요. 이게 GQA가 캐시를 줄이는 방법이에요.

# %% [markdown] lang="en"
# Check on Llama-2-70B why the exercise counts KV heads, not query heads: its 64 query heads share 8 K/V heads (GQA). Only the K/V heads are cached, so the cache is 8 times smaller than with K and V for every query head. That is how GQA shrinks the cache.

# %%
# ko: 쿼리 헤드 64개로 센 캐시 ÷ KV 헤드 8개로 센 캐시 (Llama-2-70B: 레이어 80, head_dim 128, 4096토큰, fp16)
# en: the cache with 64 query heads ÷ with 8 K/V heads (Llama-2-70B: 80 layers, 4096 tokens, fp16)
print(arithmetic.kv_cache_bytes(80, 64, 128, 4096, 1, 2)
      / arithmetic.kv_cache_bytes(80, 8, 128, 4096, 1, 2))

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 자기회귀 디코딩에서 캐시가 없으면 스텝마다 앞 토큰들의 K, V를 모든 레이어에서 다시 계산해요. 캐시가 있으면 새 토큰 하나만 계산하고, 그 K, V를 캐시에 덧붙여요.
# - 쿼리는 캐시하지 않아요. 다음 토큰은 새 토큰의 쿼리 하나와 모든 K, V로 정해지니까요.
# - 여기서는 캐시를 써도 생성한 토큰이 같았어요. 로짓은 반올림 오차만큼 달라서, 두 후보의 점수가 거의 같으면 고르는 토큰이 바뀔 수도 있어요.
# - 캐시 없는 스텝 t는 레이어마다 정확히 t배의 FLOPs를 써요. t ≪ 6·d_model이고 P = 1이면 전체 비율은 약 (T + 1)/2예요. 캐시를 써도 어텐션은 t에 따라 커져요.
# - 실제로 잰 스텝 하나의 속도 향상은 t와 함께 커지지만, 캐시를 쓴 스텝이 거의 오버헤드라서 FLOPs 비율보다 한참 작아요.
# - 캐시는 **스텝 사이에** 2 · 레이어 · KV 헤드 · head_dim · 토큰 · 배치 · 값당 바이트를 써요(Llama-2-7B, 4096토큰: 2 GiB). 자리는 보통 미리 잡아 둬요(`allocated_nbytes`). 캐시 없는 스텝은 계산하는 동안 잠깐 더 써요. 실제 LLM에서 캐시가 매개변수보다 커지는지는 배치 × 문맥에 달려 있어요(Llama-2-7B, 4096토큰: 배치 7부터).
# - MQA/GQA와 슬라이딩 윈도는 보통 학습할 때 정해요. 학습된 모델의 캐시도 KV 양자화, 토큰 빼기(StreamingLLM), GQA 업트레이닝(사전 학습의 5% 정도)으로 줄일 수 있지만, 모두 출력이 조금 달라져요.
# - 크로스 어텐션의 K, V는 원문마다 한 번만 계산해서 캐시에 둬요.
#
# 다음 시간에는 지금까지 배운 걸 돌아보고 퀴즈로 확인해요.
#
# [다음: 10. 복습 →](10_review.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - Without a cache every step recomputes the earlier tokens' K and V in every layer; with one, a step runs the new token only and appends its K and V.
# - Queries are not cached: the next token needs the newest query alone, and every K and V.
# - Here the cache changed no generated token; the logits differ by rounding, which can flip a near-tie.
# - Without a cache step t does t times the FLOPs per layer; total ratio ≈ (T + 1)/2 for P = 1, while t ≪ 6·d_model. Cached attention still grows with t.
# - One step's measured speed-up grows with t but stays far below the FLOP ratio: a cached step is almost all per-step overhead.
# - The cache keeps 2 · layers · kv_heads · head_dim · tokens · batch · bytes_per_value **between steps** (Llama-2-7B, 4096 tokens: 2 GiB), often reserved up front (`allocated_nbytes`). An uncached step briefly allocates more. Whether the cache outgrows the parameters in a real LLM depends on batch × context (Llama-2-7B, 4096 tokens: from batch 7 on).
# - MQA/GQA and sliding windows are usually training choices; a trained model's cache can still shrink by KV quantisation, eviction (StreamingLLM) or uptraining to GQA (about 5% of pre-training), each changing the outputs a little.
# - Cross-attention's K and V: computed once per source sentence, kept in the cache.
#
# Next: a look back at everything so far, with a quiz.
#
# [Next: 10. Review →](10_review.ipynb)
