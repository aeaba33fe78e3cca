from nbsource import Lesson

lesson = Lesson()

lesson.md(slide="slide", ko="""
# 10. 복습: 어텐션 한 장으로 보기

**이번 시간의 목표**
- 임베딩에서 출력까지, 어텐션의 모든 단계를 모양과 함께 한 그림으로 정리하고, 쿼리 하나의 길을 위젯으로 따라가요.
- 인코더, 디코더, 크로스 어텐션의 차이를 표 하나로 비교해요.
- 퀴즈 10문제로 스스로 확인해요. KV 캐시에 대한 흔한 오해도 들어 있어요.
- 다음에 공부할 거리를 알아봐요. 11강(학습된 실제 모델), 12강(위치 정보), 13강(큰 규모의 어텐션: MQA와 GQA, FlashAttention의 온라인 소프트맥스, PagedAttention)으로 이어져요.

**수업 시간**: 약 35분
""", en="""
# 10. Review: attention in one picture

**Goals for this lesson**
- Put every step of attention, from embeddings to output, in one picture with its shapes, and follow one query's path with a widget.
- Compare encoder self-attention, decoder self-attention and cross-attention in one table.
- Check yourself with a ten-question quiz, including the common misconceptions about the KV cache.
- Know where to go next: lessons 11 (a real trained model), 12 (positions) and 13 (attention at scale: MQA and GQA, FlashAttention's online softmax, PagedAttention).

**Class time**: about 35 minutes
""")

lesson.code(slide="skip", ko="""
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)                       # 그림과 메시지의 언어
np.set_printoptions(precision=2, suppress=True)
ex = qk.running_example()                 # "The cat sat on the mat."
""", en="""
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)                       # language of plots and messages
np.set_printoptions(precision=2, suppress=True)
ex = qk.running_example()                 # "The cat sat on the mat."
""")

lesson.md(slide="slide", ko="""
## 어텐션 한 장 요약

01강부터 05강까지 한 단계씩 본 계산을 한 그림에 모았어요. 왼쪽에서 오른쪽으로 읽어요.

1. **x**: 토큰 7개의 임베딩 (7, 8) (01강)
2. **Q, K, V**: 선형 변환 x·W_Q, x·W_K, x·W_V, 각각 (7, 4) (01강)
3. **점수** Q·Kᵀ: 쿼리와 키의 내적 (7, 7) (02강)
4. **스케일링**: √d_k = 2로 나누기. 그림의 패턴은 그대로고 값의 범위만 절반이 돼요 (03강)
5. **가중치**: 행마다 소프트맥스, 행의 합은 1 (04강)
6. **출력**: 가중치·V, 토큰마다 문맥 벡터 하나 (7, 4) (05강)

제목 아래 괄호는 배열의 모양, 대괄호는 값의 범위예요.
""", en="""
## Attention in one picture

The computation of lessons 01 to 05, step by step, in a single picture. Read it left to right.

1. **x**: the 7 tokens' embeddings, (7, 8) (lesson 01)
2. **Q, K, V**: the projections x·W_Q, x·W_K, x·W_V, (7, 4) each (lesson 01)
3. **scores** Q·Kᵀ: dot products of queries and keys, (7, 7) (lesson 02)
4. **scaling**: divide by √d_k = 2; the pattern stays, the range of values halves (lesson 03)
5. **weights**: softmax along each row; each row sums to 1 (lesson 04)
6. **output**: weights·V, one contextual vector per token, (7, 4) (lesson 05)

Under each title: the array's shape in parentheses, its range of values in brackets.
""")

lesson.code(slide="subslide", source="""
fig = qk.plots.plot_pipeline()
""")

lesson.md(slide="subslide", ko="""
그림의 단계들을 하나씩 계산해 모양을 확인하고, 마지막 출력이 패키지의 `scaled_dot_product_attention`과 같은지도 확인해요. 스케일링한 점수의 두 배가 원래 점수라는 것(√d_k = 2)도요.
""", en="""
Computing the picture's steps one by one: their shapes, a check that the final output equals the package's `scaled_dot_product_attention`, and that twice the scaled scores are the scores (√d_k = 2).
""")

lesson.code("""
steps = qk.pipeline.pipeline_steps(ex.x, ex.w_q, ex.w_k, ex.w_v)
for name, array in zip(steps._fields, steps):
    print(f"{name:8s}", array.shape)
print(np.allclose(steps.output, qk.scaled_dot_product_attention(ex.q, ex.k, ex.v).output))
print(np.allclose(2 * steps.scaled, steps.scores))
""")

lesson.md(slide="slide", ko="""
## 위젯: 쿼리 하나의 길 따라가기

슬라이더로 쿼리 토큰을 고르면, 그 토큰의 행이 모든 단계에서 주황색으로 표시돼요: 임베딩 행 → 쿼리 행 → 점수 행 → 스케일링한 행 → 가중치 행 → 출력 행. 아래 설명에는 그 행에서 가장 큰 점수가 각 단계에서 어떻게 바뀌는지 나와요.

**해 볼 것**
- "cat"에서 시작해 "on"과 "."으로 옮겨 보세요.

**눈여겨볼 것**
- K와 V에는 표시가 없어요. 어느 쿼리든 K와 V의 **모든** 행을 쓰니까요.
- 스케일링한 점수는 언제나 원래 점수의 절반(√d_k = 2로 나눔)이고, 가장 큰 점수가 가장 큰 가중치가 돼요.
""", en="""
## Widget: follow one query's path

Pick a query token with the slider: its row is outlined at every step: embedding row → query row → score row → scaled row → weight row → output row. The caption follows that row's largest score through the steps.

**Try this**
- Start at "cat", then move to "on" and ".".

**Notice**
- K and V are not outlined: every query uses **all** their rows.
- The scaled score is always half the score (divided by √d_k = 2), and the largest score becomes the largest weight.
""")

lesson.code(slide="subslide", source="""
qk.widgets.pipeline_explorer()
""")

lesson.md(slide="slide", ko="""
## 세 가지 어텐션

계산은 모두 softmax(Q·Kᵀ/√d_k)·V로 같아요. 다른 건 Q와 K, V가 어디서 오는지, 그리고 마스크가 있는지뿐이에요.

| | Q | K, V | 마스크 | 가중치 모양 | 강 |
|---|---|---|---|---|---|
| 인코더 셀프 어텐션 | 원문 | 원문 | 없음 | (원문, 원문) | 06 |
| 디코더 마스크드 셀프 어텐션 | 번역문 | 번역문 | 인과 마스크 | (번역문, 번역문) | 07 |
| 크로스 어텐션 | 번역문 (디코더) | 원문 (인코더 출력) | 없음 | (번역문, 원문) | 08 |

예제로 세 가중치의 모양을 확인해 봐요. 예제 문장을 인코더와 디코더 양쪽에 넣고, 번역 예제로 크로스 어텐션을 계산해요.
""", en="""
## Three kinds of attention

All three compute softmax(Q·Kᵀ/√d_k)·V. They differ only in where Q and K, V come from, and in the mask.

| | Q | K, V | mask | weights shape | lesson |
|---|---|---|---|---|---|
| encoder self-attention | source | source | none | (source, source) | 06 |
| decoder masked self-attention | target | target | causal mask | (target, target) | 07 |
| cross-attention | target (decoder) | source (encoder output) | none | (target, source) | 08 |

Let's check the three weight shapes on the examples: the running sentence through an encoder and a decoder, the translation for cross-attention.
""")

lesson.code(ko="""
tr = qk.translation_example()
encoder = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v)                          # 마스크 없음
decoder = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v, mask=qk.causal_mask(7))  # 인과 마스크
cross = qk.scaled_dot_product_attention(tr.q, tr.k, tr.v)                            # Q는 번역, K·V는 원문
print(encoder.weights.shape, decoder.weights.shape, cross.weights.shape)
""", en="""
tr = qk.translation_example()
encoder = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v)                          # no mask
decoder = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v, mask=qk.causal_mask(7))  # causal mask
cross = qk.scaled_dot_product_attention(tr.q, tr.k, tr.v)                            # Q target, K·V source
print(encoder.weights.shape, decoder.weights.shape, cross.weights.shape)
""")

lesson.md(slide="slide", ko="""
## 직접 해보기: 디코더의 어텐션을 처음부터 끝까지

이번에는 한 장 요약의 모든 단계를 직접 이어 붙여 봐요. 다만 예문이 아니라 **번역문** "고양이가 매트 위에 앉았다."(토큰 5개)를 **디코더**의 셀프 어텐션에 넣어요. 그래서 인과 마스크가 있어요. `tr.target_x` (5, 8)와 `tr.w_q`, `tr.w_k`, `tr.w_v`에서 시작해 Q, K, V → 점수 → 스케일링 → 마스크 → 소프트맥스 → 출력까지 계산하고, 결과 (5, 4)를 `my_output`에 넣어 보세요.

힌트: 마스크가 `False`인 칸은 `np.where(mask, scaled, -np.inf)`로 −∞를 만들 수 있어요. 여러 줄로 나눠 써도 되고, 마지막에 `my_output`만 검사해요.
""", en="""
## Try it: a decoder's attention from start to finish

Now chain every step of the picture yourself, not on the running sentence but on the **target sentence** "고양이가 매트 위에 앉았다." (5 tokens) going through the **decoder's** self-attention, so with the causal mask. Start from `tr.target_x` (5, 8) and `tr.w_q`, `tr.w_k`, `tr.w_v`, go through Q, K, V → scores → scaling → mask → softmax → output, and put the (5, 4) result in `my_output`.

Hint: `np.where(mask, scaled, -np.inf)` puts −∞ where the mask is `False`. Use as many lines as you like; only `my_output` is checked.
""")

lesson.code(exercise=True, ko="""
my_output = ...   # 번역문 5토큰, 인과 마스크를 씌운 셀프 어텐션의 출력 (5, 4)
qk.checks.check_masked_output(my_output, tr.target_x, tr.w_q, tr.w_k, tr.w_v)
""", en="""
my_output = ...   # the 5 target tokens, output of causally masked self-attention, (5, 4)
qk.checks.check_masked_output(my_output, tr.target_x, tr.w_q, tr.w_k, tr.w_v)
""")

lesson.code(solution=True, ko="""
# 풀이 · Solution (열어 보기 전에 먼저 풀어 보세요 · try it before you open this)
x = tr.target_x                                                # (5, 8)
q, k, v = x @ tr.w_q, x @ tr.w_k, x @ tr.w_v                   # (5, 4) 세 개
scaled = q @ k.T / np.sqrt(q.shape[1])                          # (5, 5)
masked = np.where(qk.causal_mask(5), scaled, -np.inf)           # 미래는 −∞
my_output = qk.softmax(masked) @ v                              # (5, 5)·(5, 4) → (5, 4)
qk.checks.check_masked_output(my_output, tr.target_x, tr.w_q, tr.w_k, tr.w_v).as_solution()
""", en="""
# 풀이 · Solution (열어 보기 전에 먼저 풀어 보세요 · try it before you open this)
x = tr.target_x                                                # (5, 8)
q, k, v = x @ tr.w_q, x @ tr.w_k, x @ tr.w_v                   # three (5, 4)
scaled = q @ k.T / np.sqrt(q.shape[1])                          # (5, 5)
masked = np.where(qk.causal_mask(5), scaled, -np.inf)           # the future is −∞
my_output = qk.softmax(masked) @ v                              # (5, 5)·(5, 4) → (5, 4)
qk.checks.check_masked_output(my_output, tr.target_x, tr.w_q, tr.w_k, tr.w_v).as_solution()
""")

lesson.md(slide="slide", ko="""
## 퀴즈

10문제예요. 답을 고르면 바로 아래에 결과가 나와요. 틀리면 어느 강을 다시 보면 좋을지 힌트가 나오고, 다른 답을 다시 고를 수 있어요. 설명은 맞혔을 때, 또는 두 번째로 틀렸을 때 나와요. 맨 아래 점수는 문제마다 **처음 고른 답**만 세요.
""", en="""
## Quiz

Ten questions. Choose an answer and the result appears right below it. A wrong choice gets a hint, the lesson to look at again, and you may choose again; the explanation comes with the right choice, or after a second wrong one. The score at the bottom counts only your **first choice** for each question.
""")

lesson.code(slide="subslide", source="""
qk.quiz.quiz_widget()
""")

lesson.md(slide="slide", ko="""
## 다음에 공부할 거리

이 코스는 네 강으로 이어져요.

- [11. 학습된 실제 모델](11_real_model.ipynb): 학습을 마친 진짜 인코더(MiniLM, all-MiniLM-L6-v2)를 이 패키지로 직접 돌려요. 어텐션을 둘러싼 블록(잔차 연결, 레이어 정규화, 피드포워드), 패딩 마스크와 배치, 학습된 헤드가 실제로 무엇을 보는지 재 봐요.
- [12. 위치 정보](12_positions.ipynb): 사인파 위치 인코딩, 학습된 위치 임베딩, 회전 위치 임베딩(RoPE). RoPE의 점수가 상대 위치에만 달려 있다는 것도 확인해요.
- [13. 큰 규모의 어텐션](13_attention_at_scale.ipynb): 타일 단위 온라인 소프트맥스(FlashAttention의 아이디어), GQA와 MQA, 슬라이딩 윈도, 페이지 단위 KV 캐시(vLLM의 아이디어), 프리필과 디코드.
- [14. 어텐션이 배우는 걸 지켜보기](14_watch_attention_learn.ipynb): 작은 영어→한국어 번역기를 numpy로 직접 학습시켜요. 손으로 정했던 08강의 정렬과 달리, 학습된 크로스 어텐션이 정렬이 되는 걸 스텝마다 보고, 어텐션이 곧 정렬은 아니라는 것과 역전파가 메모리에 남겨 두는 것도 재 봐요.

아래는 13강의 맛보기예요.

**MQA와 GQA: KV 캐시 줄이기.** 캐시 크기는 2 · 레이어 수 · KV 헤드 수 · head_dim · 토큰 수 · 배치 · 값 하나의 바이트 수예요. 멀티쿼리 어텐션(MQA)은 모든 쿼리 헤드가 KV 헤드 **하나**를 같이 쓰고, 그룹 쿼리 어텐션(GQA)은 쿼리 헤드 몇 개가 한 KV 헤드를 나눠 써요. 쿼리 헤드 8개인 모델에서 KV 헤드 수만 바꿔 1,024 토큰을 저장해 보면 캐시가 KV 헤드 수에 정비례해요.
""", en="""
## Where to go next

The course goes on with four lessons:

- [11. A real trained model](11_real_model.ipynb): a real pretrained encoder (MiniLM, all-MiniLM-L6-v2) run by this package. The block around attention (residual connections, layer norm, feed-forward), padding masks and batching, and what its trained heads actually look at, measured.
- [12. Positions](12_positions.ipynb): sinusoidal positional encoding, learned position embeddings and rotary embeddings (RoPE), with RoPE's scores shown to depend only on relative position.
- [13. Attention at scale](13_attention_at_scale.ipynb): tiled attention with the online softmax (FlashAttention's idea), GQA and MQA, sliding windows, a paged KV cache (vLLM's idea), prefill and decode.
- [14. Watch attention learn](14_watch_attention_learn.ipynb): a small English→Korean translator trained in numpy. Unlike lesson 08's hand-set alignment, its trained cross-attention becomes the alignment step by step; it also shows that attention is not alignment, and measures what the backward pass keeps in memory.

Here is a taste of lesson 13.

**MQA and GQA: a smaller KV cache.** The cache takes 2 · layers · kv_heads · head_dim · tokens · batch · bytes_per_value bytes. Multi-query attention (MQA) lets every query head share **one** K/V head; grouped-query attention (GQA) lets a group of query heads share each K/V head. For a model with 8 query heads, keep 1,024 tokens with different numbers of K/V heads: the cache is proportional to the number of K/V heads.
""")

lesson.code(ko="""
for kv_heads in (8, 2, 1):                # 멀티헤드(8), GQA(2), MQA(1)
    cache = qk.KVCache(n_heads=kv_heads, head_dim=64, capacity=1024)
    kv = np.zeros((kv_heads, 1024, 64), np.float32)                  # (KV 헤드, 토큰, head_dim)
    cache.append(kv, kv)
    print(kv_heads, cache.nbytes)         # 2 · kv_heads · 64 · 1024 · 4 바이트
""", en="""
for kv_heads in (8, 2, 1):                # multi-head (8), GQA (2), MQA (1)
    cache = qk.KVCache(n_heads=kv_heads, head_dim=64, capacity=1024)
    kv = np.zeros((kv_heads, 1024, 64), np.float32)                  # (kv_heads, tokens, head_dim)
    cache.append(kv, kv)
    print(kv_heads, cache.nbytes)         # 2 · kv_heads · 64 · 1024 · 4 bytes
""")

lesson.md(slide="subslide", ko="""
**FlashAttention과 온라인 소프트맥스.** 지금까지는 (토큰 수, 토큰 수) 점수 행렬을 통째로 만들었어요. 긴 문장에서는 이 행렬이 메모리와 시간을 가장 많이 잡아먹어요. 온라인 소프트맥스는 키와 밸류를 블록 단위로 읽으면서 행마다 세 가지만 들고 다녀요. "지금까지의 최댓값" m, "지금까지의 지수 합", 그리고 "지금까지의 출력 벡터"(밸류의 가중합)예요. 새 블록에서 최댓값이 커지면 앞의 합과 출력 벡터에 exp(m_이전 − m_새)를 곱해 다시 맞춰 줘요(04강의 최댓값 빼기 요령을 블록마다 쓰는 셈이에요). 마지막에 출력 벡터를 합으로 나누면 어텐션의 **출력**이 나와요. (토큰 수, 토큰 수) 어텐션 가중치는 한 번도 통째로 만들지 않아요. 출력만 나오고 가중치는 나오지 않아요. FlashAttention은 이 방법으로 GPU의 작고 빠른 칩 안 메모리(SRAM)에서 어텐션을 타일 단위로 계산해요. 연산량, 즉 FLOPs(부동소수점 연산 수)는 줄지 않아요. 줄어드는 건 느린 GPU 메모리(HBM)를 읽고 쓰는 양이고, 긴 문장에서는 바로 그게 속도를 정해요.

**PagedAttention(vLLM).** 요청이 많으면 요청마다 KV 캐시의 길이가 제각각이에요. PagedAttention은 운영체제의 가상 메모리처럼 캐시를 고정 크기 블록(페이지)으로 나눠 필요할 때마다 붙이고, 블록 표로 찾아가요. 미리 최대 길이만큼 잡아 두지 않으니 낭비되는 메모리가 줄어요.

이 주제들은 13강에서 직접 만들고 재 봐요: [13. 큰 규모의 어텐션](13_attention_at_scale.ipynb).
""", en="""
**FlashAttention and the online softmax.** So far we built the full (tokens, tokens) score matrix. For long inputs, that matrix is what costs the most memory and time. The online softmax reads the keys and values block by block and carries three things per row: "the largest score so far" m, "the sum of exponentials so far", and "the output so far" (a running weighted sum of values). Whenever a new block raises the maximum, the earlier sum and output are both rescaled by exp(m_old − m_new) (lesson 04's max-subtraction trick, applied per block). At the end, the output divided by the sum is attention's **output**; the (tokens, tokens) attention weights are never formed as a whole: it produces the output, never the weights. FlashAttention uses it to compute attention tile by tile in a GPU's small, fast on-chip memory (SRAM). It does not reduce the FLOPs (floating-point operations); it reduces the reads and writes of the GPU's slow main memory (HBM), which is what limits speed for long inputs.

**PagedAttention (vLLM).** A server with many requests holds KV caches of all different lengths. PagedAttention splits the cache into fixed-size blocks (pages), like an operating system's virtual memory, adds blocks as they are needed and finds them through a block table. Nothing is reserved up to a maximum length, so far less memory is wasted.

Lesson 13 builds and measures each of them: [13. Attention at scale](13_attention_at_scale.ipynb).
""")

lesson.md(slide="slide", ko="""
## 정리

- 어텐션은 x → Q, K, V → 점수 Q·Kᵀ → ÷√d_k → 소프트맥스 → 가중치·V예요. 모양은 (7, 8) → (7, 4) → (7, 7) → (7, 7) → (7, 7) → (7, 4).
- 인코더 셀프 어텐션, 디코더 마스크드 셀프 어텐션, 크로스 어텐션은 같은 계산이고, Q와 K, V의 출처와 마스크만 달라요.
- KV 캐시는 메모리를 줄이지 않아요. 스텝 사이에 들고 있는 메모리(레이어 · KV 헤드 · head_dim · 토큰 · 배치에 비례)를 더 써서 다시 계산할 일을 줄여요. 큰 언어 모델에서는 이 메모리가 아주 커요. 쿼리는 캐시하지 않아요. 캐시는 추론(토큰 하나씩 생성)을 위한 거예요.
- 캐시를 줄이는 건 KV 헤드 줄이기(MQA, GQA), 슬라이딩 윈도, 더 낮은 정밀도예요.

수고했어요! 다음 11강에서는 실제로 학습된 모델(all-MiniLM-L6-v2)을 이 패키지로 직접 돌려 봐요. 처음부터 다시 보고 싶다면 00강으로, KV 캐시를 다시 재 보고 싶다면 09강으로 가세요.

[다음: 11. 진짜 모델 들여다보기](11_real_model.ipynb) · [처음으로: 00. 시작하기](00_start_here.ipynb) · [09. KV 캐시 다시 보기](09_kv_cache.ipynb)
""", en="""
## Key takeaways

- Attention is x → Q, K, V → scores Q·Kᵀ → ÷√d_k → softmax → weights·V, with shapes (7, 8) → (7, 4) → (7, 7) → (7, 7) → (7, 7) → (7, 4).
- Encoder self-attention, decoder masked self-attention and cross-attention are the same computation; only the source of Q and K, V and the mask differ.
- The KV cache does not reduce memory: it keeps memory between steps (proportional to layers · kv_heads · head_dim · tokens · batch) to avoid recomputation; for large language models that memory is large. Queries are not cached. The cache is for inference, generating one token at a time.
- What shrinks the cache: fewer K/V heads (MQA, GQA), a sliding window, lower precision.

Well done! Next, lesson 11 runs a real trained model (all-MiniLM-L6-v2) with this package. To start over, go to lesson 00; to measure the KV cache again, lesson 09.

[Next: 11. Inside a real model](11_real_model.ipynb) · [Back to the start: 00. Start here](00_start_here.ipynb) · [Revisit 09. The KV cache](09_kv_cache.ipynb)
""")
