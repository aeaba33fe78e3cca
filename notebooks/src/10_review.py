# Lesson 10's source: make notebooks LESSON=10 builds notebooks/{ko,en}/10_review.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 10. 복습: 어텐션 한 장으로 보기
#
# **이번 시간의 목표**
# - 임베딩에서 출력까지, 어텐션의 모든 단계를 모양과 함께 한 그림으로 정리하고, 쿼리 하나의 길을 위젯으로 따라가요.
# - 인코더, 디코더, 크로스 어텐션의 차이를 표 하나로 비교해요.
# - 퀴즈 10문제로 스스로 확인해요. KV 캐시에 대한 흔한 오해도 들어 있어요.
# - 다음에 공부할 거리를 알아봐요. 11강(진짜 모델 들여다보기), 12강(어텐션 속의 위치), 13강(큰 규모의 어텐션: MQA와 GQA, 온라인 소프트맥스와 그 위에 만든 FlashAttention, PagedAttention)으로 이어져요.
#
# **수업 시간**: 약 35분

# %% [markdown] lang="en"
# # 10. Review: attention in one picture
#
# **Goals for this lesson**
# - Put every step of attention, from embeddings to output, in one picture with its shapes, and follow one query's path with a widget.
# - Compare encoder self-attention, decoder self-attention and cross-attention in one table.
# - Check yourself with a ten-question quiz, including the common misconceptions about the KV cache.
# - Know where to go next: lessons 11 (inside a real model), 12 (positions in attention) and 13 (attention at scale: MQA and GQA, the online softmax and FlashAttention built on it, PagedAttention).
#
# **Class time**: about 35 minutes

# %% slide="skip"
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=2, suppress=True)
ex = qk.running_example()                 # "The cat sat on the mat."

# %% [markdown] lang="ko" slide="slide"
# ## 어텐션 한 장 요약
#
# 01강부터 05강까지 한 단계씩 본 계산을 한 그림에 모았어요. 왼쪽에서 오른쪽으로 읽어요.
#
# 1. **x**: 토큰 7개의 임베딩 (7, 8) (01강)
# 2. **Q, K, V**: 선형 변환 x·W_Q, x·W_K, x·W_V, 각각 (7, 4) (01강)
# 3. **점수** Q·Kᵀ: 쿼리와 키의 내적 (7, 7) (02강)
# 4. **스케일링**: √d_k = 2로 나누기. 그림의 패턴은 그대로고 값의 범위만 절반이 돼요 (03강)
# 5. **가중치**: 행마다 소프트맥스, 행의 합은 1 (04강)
# 6. **출력**: 가중치·V, 토큰마다 문맥 벡터 하나 (7, 4) (05강)
#
# 제목 아래 괄호는 배열의 모양, 대괄호는 값의 범위예요.

# %% [markdown] lang="en"
# ## Attention in one picture
#
# The computation of lessons 01 to 05, step by step, in a single picture. Read it left to right.
#
# 1. **x**: the 7 tokens' embeddings, (7, 8) (lesson 01)
# 2. **Q, K, V**: the projections x·W_Q, x·W_K, x·W_V, (7, 4) each (lesson 01)
# 3. **scores** Q·Kᵀ: dot products of queries and keys, (7, 7) (lesson 02)
# 4. **scaling**: divide by √d_k = 2; the pattern stays, the range of values halves (lesson 03)
# 5. **weights**: softmax along each row; each row sums to 1 (lesson 04)
# 6. **output**: weights·V, one contextual vector per token, (7, 4) (lesson 05)
#
# Under each title: the array's shape in parentheses, its range of values in brackets.

# %% slide="subslide"
fig = qk.plots.plot_pipeline()

# %% [markdown] lang="ko" slide="subslide"
# 그림의 단계들을 하나씩 계산해 모양을 확인하고, 마지막 출력이 패키지의 `scaled_dot_product_attention`과 같은지도 확인해요. 스케일링한 점수의 두 배가 원래 점수라는 것(√d_k = 2)도요.

# %% [markdown] lang="en"
# Computing the picture's steps one by one: their shapes, a check that the final output equals the package's `scaled_dot_product_attention`, and that twice the scaled scores are the scores (√d_k = 2).

# %%
steps = qk.attention_steps.pipeline_steps(ex.x, ex.w_q, ex.w_k, ex.w_v)
for name, array in zip(steps._fields, steps):
    print(f"{name:8s}", array.shape)
print(np.allclose(steps.output, qk.scaled_dot_product_attention(ex.q, ex.k, ex.v).output))
print(np.allclose(2 * steps.scaled, steps.scores))

# %% [markdown] lang="ko" slide="slide"
# ## 위젯: 쿼리 하나의 길 따라가기
#
# 슬라이더로 쿼리 토큰을 고르면, 그 토큰의 행이 모든 단계에서 주황색으로 표시돼요. 임베딩 행 → 쿼리 행 → 점수 행 → 스케일링한 행 → 가중치 행 → 출력 행 순서예요. 아래 설명에는 그 행에서 가장 큰 점수가 각 단계에서 어떻게 바뀌는지 나와요.
#
# **해 볼 것**
# - "cat"에서 시작해 "on"과 "."으로 옮겨 보세요.
#
# **눈여겨볼 것**
# - K와 V에는 표시가 없어요. 어느 쿼리든 K와 V의 **모든** 행을 쓰니까요.
# - 스케일링한 점수는 언제나 원래 점수의 절반(√d_k = 2로 나눔)이고, 가장 큰 점수가 가장 큰 가중치가 돼요.

# %% [markdown] lang="en"
# ## Widget: follow one query's path
#
# Pick a query token with the slider: its row is outlined at every step: embedding row → query row → score row → scaled row → weight row → output row. The caption follows that row's largest score through the steps.
#
# **Try this**
# - Start at "cat", then move to "on" and ".".
#
# **Notice**
# - K and V are not outlined: every query uses **all** their rows.
# - The scaled score is always half the score (divided by √d_k = 2), and the largest score becomes the largest weight.

# %% slide="subslide"
qk.widgets.pipeline_explorer()

# %% [markdown] lang="ko" slide="slide"
# ## 세 가지 어텐션
#
# 계산은 모두 softmax(Q·Kᵀ/√d_k)·V로 같아요. 다른 건 Q와 K, V가 어디서 오는지, 그리고 마스크가 있는지뿐이에요.
#
# | | Q | K, V | 마스크 | 가중치 모양 | 강 |
# |---|---|---|---|---|---|
# | 인코더 셀프 어텐션 | 원문 | 원문 | 없음 (여러 문장을 배치로 넣을 때의 패딩 마스크는 11강에서 배워요) | (원문, 원문) | 06 |
# | 디코더 마스크드 셀프 어텐션 | 번역문 | 번역문 | 인과 마스크 (+ 패딩 마스크) | (번역문, 번역문) | 07 |
# | 크로스 어텐션 | 번역문 (디코더) | 원문 (인코더 출력) | 없음 (배치로 넣으면 원문의 패딩 마스크) | (번역문, 원문) | 08 |
#
# 예제로 세 가중치의 모양을 확인해 봐요. 예제 문장을 인코더와 디코더 양쪽에 넣고, 번역 예제로 크로스 어텐션을 계산해요.

# %% [markdown] lang="en"
# ## Three kinds of attention
#
# All three compute softmax(Q·Kᵀ/√d_k)·V. They differ only in where Q and K, V come from, and in the mask.
#
# | | Q | K, V | mask | weights shape | lesson |
# |---|---|---|---|---|---|
# | encoder self-attention | source | source | none (a padding mask in batches: lesson 11 teaches it) | (source, source) | 06 |
# | decoder masked self-attention | target | target | causal mask (+ padding) | (target, target) | 07 |
# | cross-attention | target (decoder) | source (encoder output) | none (the source's padding mask in batches) | (target, source) | 08 |
#
# Let's check the three weight shapes on the examples: the running sentence through an encoder and a decoder, the translation for cross-attention.

# %%
tr = qk.translation_example()
encoder = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v)                          # ko: 마스크 없음
                                                                                     # en: no mask
decoder = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v, mask=qk.causal_mask(7))  # ko: 인과 마스크
                                                                                     # en: causal mask
# ko: Q는 번역, K·V는 원문
# en: Q target, K·V source
cross = qk.scaled_dot_product_attention(tr.q, tr.k, tr.v)
print(encoder.weights.shape, decoder.weights.shape, cross.weights.shape)

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 디코더의 어텐션을 처음부터 끝까지
#
# 이번에는 한 장 요약의 모든 단계를 직접 이어 붙여 봐요. 다만 예제 문장이 아니라 **번역문** "고양이가 매트 위에 앉았다."(토큰 5개)를 **디코더**의 셀프 어텐션에 넣어요. 그래서 인과 마스크가 있어요. 모양이 (5, 8)인 `tr.target_x`와 `tr.w_q`, `tr.w_k`, `tr.w_v`에서 시작해 Q, K, V → 점수 → 스케일링 → 마스크 → 소프트맥스 → 출력까지 계산하고, 결과 (5, 4)를 `my_output`에 넣어 보세요.
#
# 힌트: 마스크가 `False`인 칸에 −∞를 넣으려면 `np.where(mask, scaled, -np.inf)`를 쓰면 돼요. 여러 줄로 나눠 써도 돼요. 검사하는 건 마지막의 `my_output` 하나뿐이에요.

# %% [markdown] lang="en"
# ## Try it: a decoder's attention from start to finish
#
# Now chain every step of the picture yourself, not on the running sentence but on the **target sentence** "고양이가 매트 위에 앉았다." (5 tokens) going through the **decoder's** self-attention, so with the causal mask. Start from `tr.target_x` (5, 8) and `tr.w_q`, `tr.w_k`, `tr.w_v`, go through Q, K, V → scores → scaling → mask → softmax → output, and put the (5, 4) result in `my_output`.
#
# Hint: `np.where(mask, scaled, -np.inf)` puts −∞ where the mask is `False`. Use as many lines as you like; only `my_output` is checked.

# %% exercise=true
my_output = ...   # ko: 번역문 5토큰, 인과 마스크를 씌운 셀프 어텐션의 출력 (5, 4)
                  # en: the 5 target tokens, output of causally masked self-attention, (5, 4)
qk.checks.check_masked_output(my_output, tr.target_x, tr.w_q, tr.w_k, tr.w_v)

# %% solution=true
x = tr.target_x                                                # (5, 8)
q, k, v = x @ tr.w_q, x @ tr.w_k, x @ tr.w_v                   # ko: (5, 4) 세 개
                                                               # en: three (5, 4)
scaled = q @ k.T / np.sqrt(q.shape[1])                          # (5, 5)
masked = np.where(qk.causal_mask(5), scaled, -np.inf)           # ko: 미래는 −∞
                                                                # en: the future is −∞
my_output = qk.softmax(masked) @ v                              # (5, 5)·(5, 4) → (5, 4)
qk.checks.check_masked_output(my_output, tr.target_x, tr.w_q, tr.w_k, tr.w_v).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 퀴즈
#
# 10문제예요. 답을 고르면 바로 아래에 결과가 나와요. 틀리면 어느 강을 다시 보면 좋을지 힌트가 나오고, 다른 답을 다시 고를 수 있어요. 설명은 맞혔을 때, 또는 두 번째로 틀렸을 때 나와요. 맨 아래 점수에는 문제마다 **처음 고른 답**만 들어가요.

# %% [markdown] lang="en"
# ## Quiz
#
# Ten questions. Choose an answer and the result appears right below it. A wrong choice gets a hint, the lesson to look at again, and you may choose again; the explanation comes with the right choice, or after a second wrong one. The score at the bottom counts only your **first choice** for each question.

# %% slide="subslide"
qk.quiz.quiz_widget()

# %% [markdown] lang="ko" slide="slide"
# ## 다음에 공부할 거리
#
# 이 코스는 다섯 강으로 이어져요.
#
# - [11. 진짜 모델 들여다보기](11_real_model.ipynb): 학습을 마친 진짜 인코더(MiniLM, all-MiniLM-L6-v2)를 이 패키지로 직접 돌려요. 어텐션을 둘러싼 블록(잔차 연결, 레이어 정규화, 피드포워드 네트워크), 패딩 마스크와 배치, 학습된 헤드가 실제로 무엇을 보는지 점수로 매겨 봐요.
# - [12. 어텐션 속의 위치](12_positions.ipynb): 사인파 위치 인코딩, 학습된 위치 벡터, 회전 위치 임베딩(RoPE). 인과 마스크만으로도 위치를 알 수 있다는 것, RoPE에서는 위치가 점수에 상대 위치 m − n으로만 들어간다는 것도 확인해요.
# - [13. 큰 규모의 어텐션](13_attention_at_scale.ipynb): 온라인 소프트맥스로 하는 타일 어텐션(FlashAttention이 그 위에 만들어졌어요), GQA와 MQA, 슬라이딩 윈도, 페이지 KV 캐시(vLLM의 아이디어), 프리필과 디코드.
# - [14. 어텐션이 배우는 걸 지켜보기](14_watch_attention_learn.ipynb): 작은 영어→한국어 번역기를 numpy로 직접 학습시켜요. 손으로 정했던 08강의 정렬과 달리, 학습된 크로스 어텐션이 정렬이 되는 걸 스텝마다 보고, 어텐션이 정렬과 꼭 같지는 않다는 것, 역전파가 메모리에 남겨 두는 것도 확인해요.
# - [15. 인덕션 헤드](15_induction_heads.ipynb): 어텐션만 있는 작은 디코더를 학습시키며, 이전 토큰 헤드와 인덕션 헤드가 손실의 급격한 전환과 함께 생기는 걸 봐요. 헤드를 빼 보는 실험으로 회로를 확인하고, 문맥 내 학습이 무엇인지 알아봐요.
#
# 아래는 13강의 맛보기예요.
#
# **MQA와 GQA: KV 캐시 줄이기.** 캐시 크기는 2 · 레이어 · KV 헤드 · head_dim · 토큰 · 배치 · 값당 바이트예요(09강). 멀티쿼리 어텐션(MQA)은 모든 쿼리 헤드가 KV 헤드 **하나**를 같이 쓰고, 그룹 쿼리 어텐션(GQA)은 쿼리 헤드 몇 개가 한 KV 헤드를 나눠 써요. 쿼리 헤드가 8개인 모델에서 KV 헤드 수만 바꿔 가며 토큰 1,024개를 저장해 봐요. 캐시 크기가 KV 헤드 수에 정비례하는 게 보여요.

# %% [markdown] lang="en"
# ## Where to go next
#
# The course goes on with five lessons:
#
# - [11. Inside a real model](11_real_model.ipynb): a real pretrained encoder (MiniLM, all-MiniLM-L6-v2) run by this package. The block around attention (residual connections, layer norm, feed-forward), padding masks and batching, and what its trained heads actually look at, scored.
# - [12. Positions in attention](12_positions.ipynb): sinusoidal positional encoding, learned position vectors and rotary embeddings (RoPE); a causal mask alone gives position, and in RoPE position enters the scores only through the relative position m − n.
# - [13. Attention at scale](13_attention_at_scale.ipynb): tiled attention with the online softmax (which FlashAttention builds on), GQA and MQA, sliding windows, a paged KV cache (vLLM's idea), prefill and decode.
# - [14. Watch attention learn](14_watch_attention_learn.ipynb): a small English→Korean translator trained in numpy. Unlike lesson 08's hand-set alignment, its trained cross-attention becomes the alignment step by step; it also shows that attention is not alignment, and measures what the backward pass keeps in memory.
# - [15. Induction heads](15_induction_heads.ipynb): a small attention-only decoder trained in the notebook; its previous-token head and induction head form together at a sharp drop of the loss. Knock-out experiments show the circuit, and it says what in-context learning means.
#
# Here is a taste of lesson 13.
#
# **MQA and GQA: a smaller KV cache.** The cache takes 2 · layers · kv_heads · head_dim · tokens · batch · bytes_per_value bytes. Multi-query attention (MQA) lets every query head share **one** K/V head; grouped-query attention (GQA) lets a group of query heads share each K/V head. For a model with 8 query heads, keep 1,024 tokens with different numbers of K/V heads: the cache is proportional to the number of K/V heads.

# %% lang="ko" slide="subslide"
for kv_heads in (8, 2, 1):                # 멀티헤드(8), GQA(2), MQA(1)
    cache = qk.KVCache(n_heads=kv_heads, head_dim=64, capacity=1024)
    kv = np.zeros((kv_heads, 1024, 64), np.float32)                  # (KV 헤드, 토큰, head_dim)
    cache.append(kv, kv)
    print(f"KV 헤드 {kv_heads}개: {cache.nbytes:,}바이트")   # 2 · KV 헤드 · 64 · 1024 · 4바이트

# %% lang="en"
for kv_heads in (8, 2, 1):                # multi-head (8), GQA (2), MQA (1)
    cache = qk.KVCache(n_heads=kv_heads, head_dim=64, capacity=1024)
    kv = np.zeros((kv_heads, 1024, 64), np.float32)                  # (kv_heads, tokens, head_dim)
    cache.append(kv, kv)
    print(f"kv_heads = {kv_heads}: {cache.nbytes:,} bytes")  # 2 · kv_heads · 64 · 1024 · 4 bytes

# %% [markdown] lang="ko" slide="subslide"
# **온라인 소프트맥스와 FlashAttention.** 지금까지는 (토큰 수, 토큰 수) 점수 행렬을 통째로 만들었어요. 긴 문장에서는 이 행렬이 어텐션의 메모리를 가장 많이 차지하고, 이 행렬을 메모리와 주고받는 일이 어텐션을 느리게 해요. 계산량만 보면 모델 전체에서 어텐션이 선형 변환과 피드포워드를 합친 것보다 커지는 건 토큰이 6·d_model개쯤을 넘을 때예요(d_ff = 4·d_model일 때, 09강).
#
# 온라인 소프트맥스는 키와 밸류를 블록 단위로 읽으면서 행마다 세 가지만 들고 다녀요.
#
# - m: 지금까지 본 점수의 최댓값
# - l: 지금까지 본 exp(점수 − m)의 합
# - 지금까지의 출력 벡터(exp(점수 − m)를 가중치로 한 밸류의 합)
#
# 새 블록에서 최댓값이 커지면 앞의 합과 출력 벡터에 exp(m_old − m_new)를 곱해 다시 맞춰 줘요. m_old는 이전 최댓값, m_new는 새 최댓값이에요(04강의 최댓값 빼기 요령을 블록마다 쓰는 셈이에요). 마지막에 출력 벡터를 합으로 나누면 어텐션의 **출력**이 나와요. (토큰 수, 토큰 수) 어텐션 가중치는 한 번도 통째로 만들지 않아요. 그래서 결과로는 출력만 나오고 가중치는 나오지 않아요.
#
# 온라인 소프트맥스는 Milakov와 Gimelshein(2018)이 먼저 내놓았고, FlashAttention(2022)은 이걸로 GPU 칩 안에 있는 작고 빠른 메모리(SRAM)에서 어텐션을 작은 조각(타일) 단위로 계산해요. 모델이 입력에서 출력을 계산하는 과정(순전파)의 연산량, 즉 FLOPs(부동소수점 연산 수)는 줄지 않아요. 학습할 때는 기울기를 구하는 단계(역전파, 14강에서 배워요)에서 점수를 다시 계산하니까 오히려 늘어요. 줄어드는 건 GPU의 주 메모리(HBM: 크지만 칩 밖에 있어서 SRAM보다 느려요)를 읽고 쓰는 양이고, 긴 문장에서는 바로 그게 속도를 정해요.
#
# **PagedAttention(vLLM).** 요청이 많으면 요청마다 KV 캐시의 길이가 제각각이에요. PagedAttention은 운영체제의 가상 메모리와 같은 방법을 써요. 가상 메모리는 메모리를 작은 페이지로 나눠 필요한 만큼만 내주는 방식이에요. 캐시를 고정 크기 블록으로 나눠 필요할 때마다 붙이고, 블록 표(block table)로 어느 블록에 있는지 찾아가요. vLLM 이전의 서버처럼 미리 최대 길이만큼 잡아 두지 않으니, 낭비는 요청마다 덜 찬 블록 하나 이하로 줄어요. 프롬프트가 같은 요청들은 같은 블록을 나눠 쓰다가, 어느 한쪽이 블록의 내용을 바꿔야 할 때만 그 블록을 복사할 수도 있어요(copy-on-write).
#
# 이 주제들은 13강에서 직접 만들고 재 봐요. [13. 큰 규모의 어텐션](13_attention_at_scale.ipynb).

# %% [markdown] lang="en"
# **The online softmax and FlashAttention.** So far we built the full (tokens, tokens) score matrix. For long inputs that matrix is what costs attention the most memory, and moving it to and from memory is what makes attention slow (in the whole model, attention's arithmetic overtakes that of the projections and the feed-forward network only past about 6·d_model tokens, for d_ff = 4·d_model: lesson 09).
#
# The online softmax reads the keys and values block by block and carries three things per row:
#
# - m: the largest score so far
# - l: the sum of exp(score − m) over the scores so far
# - the output so far (the sum of the values weighted by exp(score − m))
#
# Whenever a new block raises the maximum, the earlier sum and output are both rescaled by exp(m_old − m_new), where m_old is the previous maximum and m_new the new one (lesson 04's max-subtraction trick, applied per block). At the end, the output divided by the sum is attention's **output**; the (tokens, tokens) attention weights are never formed as a whole: it produces the output, never the weights.
#
# The online softmax came first (Milakov & Gimelshein, 2018); FlashAttention (2022) uses it to compute attention tile by tile in a GPU's small, fast on-chip memory (SRAM). It does not reduce the forward pass's FLOPs (floating-point operations), and in training its backward pass (which lesson 14 teaches) recomputes the scores, so there are more; it reduces the reads and writes of the GPU's slow main memory (HBM), which is what limits speed for long inputs.
#
# **PagedAttention (vLLM).** A server with many requests holds KV caches of all different lengths. PagedAttention splits the cache into fixed-size blocks (pages), like an operating system's virtual memory, adds blocks as they are needed and finds them through a block table. Nothing is reserved up to a maximum length, as servers before vLLM did, so the waste is at most one partly filled block per request; requests with the same prompt can even share blocks, copied only when one of them writes.
#
# Lesson 13 builds and measures each of them: [13. Attention at scale](13_attention_at_scale.ipynb).

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 어텐션은 x → Q, K, V → 점수 Q·Kᵀ → ÷√d_k → 소프트맥스 → 가중치·V예요. 모양은 (7, 8) → (7, 4) → (7, 7) → (7, 7) → (7, 7) → (7, 4) 순서로 바뀌어요.
# - 인코더 셀프 어텐션, 디코더 마스크드 셀프 어텐션, 크로스 어텐션은 같은 계산이고, Q와 K, V의 출처와 마스크만 달라요.
# - KV 캐시는 메모리를 줄이지 않아요. 스텝 사이에 들고 있는 메모리(레이어 · KV 헤드 · head_dim · 토큰 · 배치에 비례)를 더 써서 다시 계산할 일을 줄여요. 대형 언어 모델(LLM)에서는 배치와 문맥이 크면 이 메모리가 매개변수보다도 커져요. 쿼리는 캐시하지 않아요. 캐시는 추론(토큰 하나씩 생성)을 위한 거예요.
# - 캐시를 줄이는 건 KV 헤드 줄이기(MQA, GQA), 슬라이딩 윈도, 더 낮은 정밀도예요.
#
# 수고했어요! 다음 11강에서는 실제로 학습된 모델(all-MiniLM-L6-v2)을 이 패키지로 직접 돌려 봐요. 처음부터 다시 보고 싶다면 00강으로, KV 캐시를 다시 재 보고 싶다면 09강으로 가세요.
#
# [다음: 11. 진짜 모델 들여다보기](11_real_model.ipynb) · [처음으로: 00. 여기서 시작하세요](00_start_here.ipynb) · [09. KV 캐시 다시 보기](09_kv_cache.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - Attention is x → Q, K, V → scores Q·Kᵀ → ÷√d_k → softmax → weights·V, with shapes (7, 8) → (7, 4) → (7, 7) → (7, 7) → (7, 7) → (7, 4).
# - Encoder self-attention, decoder masked self-attention and cross-attention are the same computation; only the source of Q and K, V and the mask differ.
# - The KV cache does not reduce memory: it keeps memory between steps (proportional to layers · kv_heads · head_dim · tokens · batch) to avoid recomputation; for large language models with a large batch and context it outgrows the parameters. Queries are not cached. The cache is for inference, generating one token at a time.
# - What shrinks the cache: fewer K/V heads (MQA, GQA), a sliding window, lower precision.
#
# Well done! Next, lesson 11 runs a real trained model (all-MiniLM-L6-v2) with this package. To start over, go to lesson 00; to measure the KV cache again, lesson 09.
#
# [Next: 11. Inside a real model](11_real_model.ipynb) · [Back to the start: 00. Start here](00_start_here.ipynb) · [Revisit 09. The KV cache](09_kv_cache.ipynb)
