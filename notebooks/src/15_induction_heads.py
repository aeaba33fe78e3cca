# Lesson 15's source: make notebooks LESSON=15 builds notebooks/{ko,en}/15_induction_heads.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 15. 인덕션 헤드: 디코더가 복사를 배우는 순간
#
# 언어 모델은 프롬프트에 한 번 나온 이름을 다시 써요. Olsson 외(2022)는 이 능력의 상당 부분이 <b>인덕션 헤드(induction head)</b>에서 나온다는 증거를 보여 줬어요(Elhage 외 2021도 보세요). 인덕션 헤드는 짝을 이뤄 일해요. 레이어 0의 **이전 토큰 헤드**가 각 자리에 '내 앞 토큰'을 적어 두면, 레이어 1의 인덕션 헤드가 그걸 키에서 읽어 지금 토큰이 지난번에 나왔을 때 그 **다음**에 온 토큰을 찾아 복사해요. 작은 디코더를 여기서 1분 안에 학습시키면, 손실이 갑자기 떨어지는 순간(<b>급격한 전환(phase change)</b>)에 두 헤드가 함께 생겨요.
#
# **이번 시간의 목표**
# - 복사로만 맞힐 수 있는 과제를 알아보고, 어텐션만 있는 2레이어 디코더를 직접 학습시켜요.
# - 손실이 떨어질 때 두 헤드의 점수가 함께 뛰는 걸 봐요.
# - 두 헤드가 함께 하는 일(<b>회로</b>)을 세 가지로 확인해요. 그중 하나는 여러분이 진단해요.
# - 11강의 MiniLM에서 같은 헤드를 찾아보고, <b>문맥 내 학습(in-context learning)</b>과 이 장난감 모델의 한계를 정리해요.
#
# **수업 시간**: 약 60분

# %% [markdown] lang="en"
# # 15. Induction heads: the moment a decoder learns to copy
#
# Language models reuse a name seen once in the prompt. Olsson et al. (2022) trace much of that to **induction heads** (see also Elhage et al. 2021), which work in pairs: layer 0's **previous-token head** writes "my previous token" into each position; layer 1's induction head reads it in the keys, finds what came **after** the current token last time, and copies it. Here a small decoder learns this in a minute, and both heads form at a sudden drop of the loss: a **phase change**.
#
# **Goals for this lesson**
# - A task only copying solves; a 2-layer attention-only decoder trained live.
# - Both heads' scores jump where the loss drops.
# - The **circuit** (the two heads together) tested three ways, one by you.
# - The same heads in lesson 11's MiniLM; **in-context learning** and the toy's limits.
#
# **Class time**: about 60 minutes

# %% slide="skip"
import matplotlib.pyplot as plt
import numpy as np
import qkv_helpers as qk
from IPython.display import display
from qkv_helpers import induction
from qkv_helpers.classroom.source_code import code_without_docstring

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=3, suppress=True)

# %% [markdown] lang="ko" slide="slide"
# ## 1. 과제: 복사로만 맞힐 수 있는 수열
#
# 토큰은 0부터 31까지의 번호 32개예요. 토큰 32개짜리 수열에서는 무작위 잡음 뒤에 무작위 **구간** 하나가 두 번 이어져요: [잡음][구간][구간]. 구간 길이는 수열마다 8에서 16 사이로 뽑아서, 반복이 어디서 시작하는지 알 수 없어요(왜 중요한지는 6절에서 봐요).
#
# 모델은 **다음 토큰**을 예측해요. 잡음과 처음 나온 구간에서는 우연 수준(손실 ln 32 ≈ 3.47)보다 잘할 수 없어요. 반복된 구간은 두 번째 토큰부터 맞힐 수 있어요. 첫 토큰은 처음 나온 구간의 마지막 토큰 다음에 오는데, 그 자리에 무엇이 오는지는 앞에서 본 적이 없거든요. 구간이 `seqs.first`에서, 반복이 `seqs.repeat`에서 시작하면, 위치 repeat + i의 답은 first + i + 1에 있어요. `copying_targets`는 인덕션 헤드가 봐야 할 이 키들을 알려 줘요.

# %% [markdown] lang="en"
# ## 1. The task: sequences only copying can predict
#
# Tokens are 32 ids, 0 to 31. A sequence of 32 tokens is random noise, then a random **segment** written twice: [noise][segment][segment]. The segment's length is drawn per sequence, 8 to 16, so the repeat's start is unknown (why: section 6).
#
# The model predicts the **next token**: on the noise and the first occurrence, no better than chance (a loss of ln 32 ≈ 3.47). The repeat is predictable from its second token on (what follows the segment's last token is new). If the segment starts at `seqs.first` and the repeat at `seqs.repeat`, the answer at position repeat + i sits at first + i + 1. `copying_targets` lists these keys an induction head should read.

# %% slide="subslide"
seqs = induction.make_sequences(3, seed=1)
print(seqs.tokens.shape)                  # ko: (수열, 토큰)
                                          # en: (sequences, tokens)
for tokens, first, repeat in zip(seqs.tokens, seqs.first, seqs.repeat):
    print(tokens[:first], tokens[first:repeat], tokens[repeat:])   # ko: 잡음, 구간, 반복
                                                                   # en: noise, segment, repeat
print(seqs.length, round(np.log(32), 2))  # ko: 구간 길이, 우연 수준 ln 32
                                          # en: segment lengths, chance ln 32
rows, queries, keys = induction.copying_targets(seqs)
print(queries[:5], keys[:5])              # ko: 첫 수열: 쿼리 위치 → 봐야 할 키 위치
                                          # en: first sequence: query position → the key to read
print(seqs.tokens[0, keys[:5]], seqs.tokens[0, queries[:5] + 1])   # ko: 그 키의 토큰 = 다음 토큰
                                                                   # en: that key's token = next token

# %% [markdown] lang="ko" slide="slide"
# ## 2. 모델: 어텐션만 있는 2레이어 디코더
#
# 07강의 마스크드(인과) 셀프 어텐션과 12강의 학습되는 위치 임베딩만 써요. 레이어마다 헤드 하나(d_k = 8), d_model = 32이고, 피드포워드와 레이어 정규화는 없어요. 레이어는 11강과 14강의 트랜스포머 블록(`qkv_helpers.block`)에서 셀프 어텐션만 남긴 거예요. 각 레이어는 입력 x에 자기 출력을 더해 넘겨요(11강의 잔차 연결). 이렇게 레이어를 지나며 계속 더해지는 x를 **잔차 스트림**이라고 불러요. E는 토큰 임베딩 표, P는 위치 임베딩 표, n은 읽는 토큰 수(31), B는 한 번에 넣는 수열 수(배치)예요.
#
# - x₀ = E[토큰] + P[위치] (B, n, 32)
# - x₁ = x₀ + attn₀(x₀), x₂ = x₁ + attn₁(x₁)
# - 로짓 = x₂ · W_U (B, n, 32) (W_U는 벡터를 토큰 32개의 점수로 바꿔요)
#
# attn(x) = softmax(마스크(x·W_Q (x·W_K)ᵀ / √8)) · (x·W_V) · W_O예요. 핵심은 레이어 1의 키가 레이어 0의 출력이 더해진 x₁에서 나온다는 거예요. 손실은 14강과 같고, 학습 전에는 우연 수준보다 조금 높아요.

# %% [markdown] lang="en"
# ## 2. The model: an attention-only, 2-layer decoder
#
# Lesson 07's causal self-attention plus lesson 12's learned positions: one head per layer (d_k = 8), d_model = 32, no feed-forward or layer norm: the course's block (`qkv_helpers.block`) with only self-attention. Each layer adds its output to x (lesson 11's residual connection): x is the **residual stream**. E, P: the token and position tables; n: tokens read (31); B: the batch:
#
# - x₀ = E[tokens] + P[positions] (B, n, 32)
# - x₁ = x₀ + attn₀(x₀), x₂ = x₁ + attn₁(x₁)
# - logits = x₂ · W_U (B, n, 32) (W_U turns a vector into the 32 tokens' scores)
#
# with attn(x) = softmax(mask(x·W_Q (x·W_K)ᵀ / √8)) · (x·W_V) · W_O. The point: layer 1's keys come from x₁, which holds layer 0's output. The loss is lesson 14's; untrained, a little above chance.

# %%
model = induction.InductionModel(n_layers=2, seed=0)
logits, cache = model.forward(seqs.tokens[:, :-1])   # ko: 마지막 토큰 앞까지 읽고 다음을 예측
                                                     # en: read up to the last token, predict the next
print(model.n_parameters, logits.shape, cache["l1"].weights.shape)   # ko: (B, n, 어휘), (B, 헤드 1개, n, n)
                                                                # en: (B, n, V), weights (B, 1, n, n)
print({name: p.shape for name, p in model.params.items()})
parts = induction.loss_by_part(model, seqs)
print({qk.lang.t("l15_part_" + part): round(loss, 2) for part, loss in parts.items()})

# %% [markdown] lang="ko" slide="slide"
# ## 3. 역전파: 14강의 연산 그대로
#
# 역전파는 레이어마다 14강의 `block_backward`를 반대 순서로 불러요. 나머지는 14강의 `backprop` 연산이에요. 잔차 연결 덕분에 기울기 `d_x`는 레이어를 그대로 지나가고, 각 헤드는 자기 몫을 더해요. 유한 차분으로 매개변수 배열 11개에서 원소를 10개씩 검사해요(float64로 ±ε만큼 바꿔요).

# %% [markdown] lang="en"
# ## 3. The backward pass: lesson 14's operations
#
# The backward calls lesson 14's `block_backward` per layer, in reverse order; the rest is lesson 14's `backprop` operations. The residual passes the gradient `d_x` through each layer, each head adding its part. Finite differences check ten entries of each of the 11 parameter arrays (nudged by ±ε, in float64).

# %% slide="subslide"
print(code_without_docstring(induction.InductionModel.backward))
errors = induction.gradient_check(model, seqs.tokens)
largest = max(errors.values())
print(len(errors), largest < 1e-6, round(np.log10(largest)))   # ko: 배열 수, 오차 < 1e-6?, 10의 몇 제곱
                                                               # en: arrays; error < 1e-6?; power of 10

# %% [markdown] lang="ko" slide="slide"
# ## 4. 학습시키기
#
# 스텝마다 새 수열 32개를 뽑아 **Adam**(14강)으로 매개변수를 고쳐요. 학습률 0.02로 1,200스텝 학습해요. 50스텝마다 학습에 쓰지 않는 수열 200개로 처음 나온 구간과 반복된 구간의 손실, 그리고 두 점수를 재요. 레이어 0의 **이전 토큰 점수**는 바로 앞 토큰에 준 가중치의 평균이고, 레이어 1의 **인덕션 점수**(Olsson 외의 '접두어 일치 점수')는 반복된 구간에서 지금 토큰이 앞서 나온 자리의 다음 토큰에 준 가중치의 평균이에요. CPU 한 코어로 3~30초쯤 걸려요.

# %% [markdown] lang="en"
# ## 4. Train it
#
# Each step draws 32 new sequences and updates the parameters with **Adam** (lesson 14), learning rate 0.02, for 1,200 steps. Every 50 steps, 200 held-out sequences measure both losses, layer 0's **previous-token score** (its mean weight on the token just before) and layer 1's **induction score** (Olsson et al.'s prefix-matching score: in the repeat, its mean weight on the token after the current token's earlier occurrence). 3–30 seconds on one CPU core.

# %% slide="subslide" ignore_output=true
bar = qk.widgets.induction_progress(1200)
display(bar)
run = induction.train(steps=1200, seed=0, callback=bar.update)
print(round(run.seconds, 1))              # ko: 걸린 시간(초)
                                          # en: seconds taken

# %% [markdown] lang="ko" slide="slide"
# ## 5. 두 헤드가 생기는 순간
#
# 표는 100스텝마다 두 손실(단위는 자연로그로 잰 nat)과 두 점수를 보여 줘요. `cliff_step`은 반복된 구간의 손실이 우연 수준보다 1 nat 이상 내려간 첫 스텝이에요(그림의 회색 세로 점선). 인덕션 점수는 레이어 1이 어디를 보는지만 재요. Olsson 외의 인덕션 헤드는 복사도 해야 해요. 어텐션으로 찾은 자리의 토큰을 밸류와 출력 선형 변환(W_V·W_O)을 거치는 길, 곧 OV 회로로 보내 그 토큰의 로짓을 올리는 거예요. 반복된 구간의 손실이 떨어지는 게 그 증거예요.

# %% [markdown] lang="en"
# ## 5. The moment the two heads form
#
# Both losses (in nats: natural log) and both scores every 100 steps. `cliff_step` is the first step where the loss on the repeat is 1 nat or more below chance (the vertical grey dotted line). The induction score measures only where layer 1 looks; Olsson et al. also require copying, raising the attended token's logit through W_V·W_O (the OV circuit). The repeat's falling loss shows it.

# %% lang="ko" slide="subslide"
cliff = induction.cliff_step(run.history)
print(cliff)
print(" 스텝  처음 구간  반복 구간  이전 토큰     인덕션")   # 한글은 두 칸 너비
for r in run.history[::2]:
    print(f"{r['step']:5d}  {r['first']:9.2f}  {r['repeat']:9.2f}  "
          f"{r['previous_token']:9.2f}  {r['induction']:9.2f}")

# %% lang="en"
cliff = induction.cliff_step(run.history)
print(cliff)
print(" step      first     repeat   previous  induction")
for r in run.history[::2]:
    print(f"{r['step']:5d}  {r['first']:9.2f}  {r['repeat']:9.2f}  "
          f"{r['previous_token']:9.2f}  {r['induction']:9.2f}")

# %% slide="subslide"
qk.plots.plot_induction_curves(run.history)
plt.show()                                # ko: 그림을 보여 주고 닫아요
                                          # en: shows the figure and closes it

# %% [markdown] lang="ko" slide="subslide"
# 반복된 구간의 손실은 150스텝쯤까지 우연 수준에 머물러요(**평평한 구간**). 그 뒤 3.0쯤까지 천천히 내려가요(앞에 나온 토큰을 밀어 주기만 하는 6절의 1레이어 모델은 3.2에서 멈춰요). 그러다 스텝 600~800 사이에 1.5쯤까지 뚝 떨어지고(그 뒤 1.3쯤에서 멈춰요), **바로 그때 두 점수가 함께** 뛰어올라요. 한 헤드만으로는 반복된 구간을 맞히지 못해서(레이어 1은 키에 레이어 0의 출력이 필요해요) 둘이 함께 생겨요.
#
# 처음 나온 구간의 손실은 오히려 우연 수준보다 조금 **올라가요**. 반복이 없는 곳에서도 레이어 1은 (주로 앞쪽 한 자리를) 보고 그 토큰을 복사해, 자신 있게 틀려요.

# %% [markdown] lang="en"
# For about 150 steps the loss on the repeat sits at chance (a **plateau**). It slides slowly to about 3.0 (section 6's 1-layer model, which only boosts earlier tokens, stops at 3.2), then between steps 600 and 800 drops off a cliff to about 1.5 (later 1.3), **just as both scores jump**. Neither head alone predicts the repeat (layer 1 needs layer 0's output in its keys), so they form together.
#
# The first occurrence's loss rises a little **above** chance: where nothing repeats, layer 1 still attends (mostly to an early position) and copies that token: confidently wrong.

# %% [markdown] lang="ko" slide="subslide"
# 학습 전(위)과 후(아래) 두 헤드의 어텐션을 학습에 쓰지 않은 수열 하나에서 봐요. 행은 쿼리, 열은 키이고, 축에는 토큰 번호가 있어요. 흰 선은 구간과 반복이 시작하는 곳, 주황 테두리는 바로 앞 토큰(레이어 0)과 복사할 토큰(레이어 1)이에요. 학습 후 레이어 0은 **바로 아래 대각선**을, 레이어 1은 반복된 구간에서 같은 토큰이 처음 나온 자리보다 **한 칸 오른쪽**을 잇는 줄을 그려요. 레이어 0의 대각선은 어느 수열에서나 위치 22에서 끊겨요. 복사할 키가 그렇게 오른쪽에 오는 건 구간이 토큰 8~9개일 때뿐이라 배우기엔 너무 드물었고, 그래서 그런 짧은 구간에서는 복사가 잘 안 돼요. 끊긴 뒤 레이어 0의 쿼리는 앞쪽 한 자리에 가중치를 몰아 둬요(왼쪽 아래의 짧은 세로줄). 반복된 구간 밖에서 레이어 1의 쿼리는 복사할 곳이 없어서 앞쪽 한 자리(여기서는 위치 2의 토큰 9)에 가중치를 몰아 둬요(밝은 세로줄).

# %% [markdown] lang="en"
# Both heads on one held-out sequence, before (top) and after training (bottom): rows are queries, columns keys, labelled with their tokens; white lines mark where the segment and the repeat start; orange outlines the previous token (layer 0) and the token to copy (layer 1). After training, layer 0 draws the **sub-diagonal**; layer 1, in the repeat, a stripe **one right** of each earlier occurrence. Layer 0's diagonal stops at position 22 in every sequence: only segments of 8 or 9 put copied keys that far right, too rarely to learn, so copying there is weaker. Outside the repeat, layer 1 parks on an early position (the bright column), as layer 0 does past 22.

# %% slide="subslide"
qk.plots.plot_induction_maps(run.snapshots[0], run.snapshots[-1], run.shown,
                             steps=(run.history[0]["step"], run.history[-1]["step"]))
plt.show()

# %% [markdown] lang="ko" slide="subslide"
# 같은 수열의 위치별 손실이에요(가로축은 예측할 토큰). 잡음(배경 없음)과 처음 나온 구간(파란 배경)에서는 우연 수준 근처예요. 주황 배경은 반복된 구간에서 복사로 맞힐 수 있는 토큰(두 번째 토큰부터)이고, 여기서 손실이 낮아요(처음 1.8, 그 뒤 0.3쯤). 두 곳(예측할 토큰 1과 3)에서만 다시 튀어 올라요. 그 바로 왼쪽 토큰, 곧 쿼리는 3과 30이에요. 3과 30은 구간에 두 번씩 나오고 그 다음 토큰이 그때마다 달라서(3 다음은 1과 30, 30 다음은 3과 12) 무엇을 복사할지 모호해요.

# %% [markdown] lang="en"
# The loss per position of the same sequence (x axis: the token predicted): near chance on the noise (unshaded) and the first occurrence (blue), low from the repeat's **second token** (orange) on (1.8 there, then about 0.3). It jumps twice (at tokens 1 and 3), after the queries 3 and 30: each occurs twice in the segment with different next tokens (1 and 30; 3 and 12), so which to copy is ambiguous.

# %%
losses = induction.loss_per_position(run.model, run.shown.tokens)[0]   # (n − 1,)
print(run.shown.first, run.shown.repeat, losses[run.shown.repeat[0]:].round(1))
qk.plots.plot_loss_per_position(losses, run.shown)
plt.show()

# %% [markdown] lang="ko" slide="slide"
# ## 위젯: 스텝을 넘기며 보기
#
# 슬라이더로 학습 스텝을 골라요. 위는 두 레이어의 어텐션, 아래는 손실과 점수예요. 검은 세로선은 지금 고른 스텝이에요.
#
# **해 볼 것**
# - 스텝 0에서 평평한 구간을 따라가 보세요. 그림이 달라지나요?
# - 급격한 전환 근처에서 천천히 움직여 보세요. 레이어 0의 대각선과 레이어 1의 한 칸 비낀 줄 중 무엇이 먼저 보이나요?

# %% [markdown] lang="en"
# ## Widget: scrub through the steps
#
# Pick a step: both layers' attention on top, losses and scores below; a black line marks it.
#
# **Try this**
# - Move along the plateau from step 0. Does the picture change?
# - Move slowly across the cliff. Which appears first, the diagonal or the stripe?

# %% slide="subslide"
qk.widgets.induction_explorer(run)

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 레이어 1의 쿼리는 어디를 볼까요
#
# `puzzle`은 학습에 쓰지 않은 새 수열이에요. `queries`의 세 쿼리는 레이어 1에서 각각 어느 위치에 가장 큰 가중치를 줄까요(위치는 0부터)? 먼저 예측해서 세 위치를 `queries`와 같은 순서로 `my_positions`에 리스트로 적고 검사해요. 틀리면 검사기는 답 대신 힌트를 줘요.

# %% [markdown] lang="en"
# ## Try it: where does a layer-1 query look?
#
# `puzzle` is a new held-out sequence. Which position gets the largest layer-1 weight from each query in `queries` (positions from 0)? Predict, write the three in `my_positions`, in `queries`' order, then check. Wrong answers get a hint, not the answer.

# %%
puzzle = induction.make_sequences(1, seed=7)
queries = [26, 23, 29]                    # ko: 쿼리 위치 세 개
                                          # en: three query positions
print(np.arange(32)[:16], puzzle.tokens[0, :16], sep="\n")   # ko: 위치, 토큰
                                                             # en: positions, tokens
print(np.arange(32)[16:], puzzle.tokens[0, 16:], sep="\n")
print(puzzle.tokens[0, queries])          # ko: 쿼리 위치의 토큰
                                          # en: the tokens at the query positions

# %% exercise=true
my_positions = ...                        # ko: 위치 세 개의 리스트, 예: [3, 4, 5]
                                          # en: a list of three positions, e.g. [3, 4, 5]
qk.checks.check_induction_targets(my_positions, run.model, puzzle, queries)

# %% solution=true
my_positions = []
for query in queries:                     # ko: 같은 토큰이 앞에 나온 자리의 다음 자리
                                          # en: the position after the earlier copy of the token
    same = np.flatnonzero(puzzle.tokens[0, :query] == puzzle.tokens[0, query])
    my_positions.append(int(same[-1]) + 1)   # ko: 레이어 0이 "앞 토큰은 ○"라고 적어 둔 키
                                             # en: its key says "my previous token is ○"
qk.checks.check_induction_targets(my_positions, run.model, puzzle, queries).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 인덕션 점수를 재는 함수 만들기
#
# `my_induction_score(weights, seqs)`를 만들어 봐요. 헤드 하나의 가중치 `weights` (B, n, n)에서, 반복된 구간의 쿼리 repeat + i가 키 first + i + 1에 준 가중치의 평균을 돌려줘요(i = 0 … length − 2). 모든 수열의 쌍을 모아 평균을 하나 내요. 검사기는 본 적 없는 수열과 가중치로 `induction.induction_score`와 비교해요. 패키지 함수를 부르는 답은 받지 않아요.

# %% [markdown] lang="en"
# ## Try it: write the induction score
#
# Write `my_induction_score(weights, seqs)`: from one head's `weights` (B, n, n), the mean weight the repeat's query repeat + i puts on key first + i + 1 (i = 0 … length − 2), one mean over all pairs of all sequences. The checker compares it with `induction.induction_score` on unseen data and refuses calls to the package.

# %% exercise=true
def my_induction_score(weights, seqs):
    return ...                            # ko: seqs.first, seqs.repeat, seqs.length를 써요
                                          # en: use seqs.first, seqs.repeat, seqs.length

qk.checks.check_induction_score(my_induction_score)

# %% solution=true
def my_induction_score(weights, seqs):
    picked = []
    for b, (first, repeat, length) in enumerate(zip(seqs.first, seqs.repeat, seqs.length)):
        i = np.arange(length - 1)         # ko: 다음 토큰이 구간 안에 있는 쿼리만
                                          # en: only queries whose next token is in the segment
        picked.append(weights[b, repeat + i, first + i + 1])
    return float(np.concatenate(picked).mean())

qk.checks.check_induction_score(my_induction_score).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 6. 그림만이 아니라 회로예요
#
# 그럴듯한 그림이 그 헤드가 그 일을 한다는 증거는 아니에요(14강: 어텐션은 정렬이 아니에요). 두 가지로 확인해요. 첫째는 <b>헤드 빼기(knock-out)</b>예요. 레이어 0 헤드의 출력을 잔차 스트림에서 통째로 빼거나(`"head0"`), 레이어 1이 **키**를 만들 때만 빼요(`"head0_keys"`: 키는 x₀에서, 쿼리와 밸류는 그대로 x₁에서 만들어요). 비교하려고 쿼리를 만들 때만(`"head0_queries"`), 밸류를 만들 때만(`"head0_values"`) 빼 보기도 해요. 둘째는 같은 방법으로 학습한 **1레이어 모델**이에요. 그 헤드 하나는 "앞 토큰이 지금 토큰과 같은 자리"를 찾아야 하는데, 키에는 그 자리 자신의 토큰과 위치만 있어요.

# %% [markdown] lang="en"
# ## 6. A circuit, not a picture
#
# A plausible map does not prove that a head does the job (lesson 14: attention is not alignment). Two tests. **Knock-out**: take layer 0's head out of the residual stream (`"head0"`) or out of layer 1's **keys** only (`"head0_keys"`: keys from x₀, queries and values from x₁); as controls, out of the queries (`"head0_queries"`) or the values (`"head0_values"`) only. And **a 1-layer model** trained the same way: its single head would need "the position whose previous token equals mine", but a key holds only its own token and position.

# %% slide="subslide"
for knock_out in (None, "head0", "head0_keys", "head0_queries", "head0_values"):
    # ko: None: 아무것도 빼지 않음. 출력: 처음 나온 구간, 반복된 구간의 손실
    # en: None: nothing removed. Printed: loss on the first occurrence, on the repeat
    parts = induction.loss_by_part(run.model, run.evaluation, knock_out=knock_out)
    print(knock_out, {qk.lang.t("l15_part_" + part): round(loss, 2)
                      for part, loss in parts.items()})
one_layer = induction.train(steps=1200, n_layers=1, seed=0)
last = one_layer.history[-1]              # ko: 스텝, 반복된 구간의 손실, 인덕션 점수, 전환 스텝
                                          # en: step, loss on the repeat, induction score, cliff
print(last["step"], round(last["repeat"], 2), round(last["induction"], 2),
      induction.cliff_step(one_layer.history))

# %% [markdown] lang="ko" slide="subslide"
# `"head0"`과 `"head0_keys"` 모두 반복된 구간의 손실을 우연 수준 근처(3.3)로 되돌리고, 쿼리나 밸류에서만 빼면 거의 그대로예요. 두 헤드는 키를 통해 이어져 있어요(**K-합성**, K-composition).
#
# 1레이어 모델(마지막 줄)은 급격한 전환이 없고(`None`), 반복된 구간의 손실이 우연 수준 근처(3.2)에 머물러요. 조금 내려가는 건 앞에 나온 토큰을 모두 조금씩 밀어 주는 토큰 단위의 복사 덕분이에요. Elhage 외는 이걸 원시적인 문맥 내 학습이라고 불러요. 매개변수는 그대로인데 입력 속에서 본 것을 써서 더 잘 맞히니까요(8절). 앞에 나온 자리의 **다음** 토큰을 복사하는 인덕션에는 레이어가 두 개 필요해요.

# %% [markdown] lang="en"
# `"head0"` and `"head0_keys"` both send the loss on the repeat back near chance (3.3); the queries or values alone change little: the heads connect through the keys (**K-composition**).
#
# The 1-layer model (the last line) has no cliff (`None`); its loss on the repeat stays near chance (3.2): it only boosts every token seen earlier (copying by token: Elhage et al.'s primitive in-context learning, section 8). Induction, copying *what came after*, takes a second layer.

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 망가뜨려 보기 (길이가 늘 같은 반복)
#
# 이번에는 반복 길이를 **늘 16**으로 고정해요. 수열은 [토큰 16개짜리 구간][같은 구간]뿐이에요. 아래 셀은 이 모델을 길이 16에서 재고, 학습에 없던 길이 8과 12에서도 재요.

# %% [markdown] lang="en"
# ## Try it: break it (repeats of one length)
#
# Now the repeat length is **always 16**: every sequence is [a segment of 16 tokens][the same segment]. The cell below measures this model at length 16, then at lengths 8 and 12, never seen in training.

# %%
broken = induction.train(steps=600, repeat_lengths=(16, 16), seed=0)
for length in (16, 8, 12):                # ko: 길이, 처음 나온 구간과 반복된 구간의 손실, 인덕션 점수
                                          # en: length, loss on first and repeat, induction score
    test = induction.make_sequences(200, seed=7, repeat_lengths=(length, length))
    parts = induction.loss_by_part(broken.model, test)
    score = induction.induction_score(broken.model.attention_maps(test.tokens[:, :-1])[1], test)
    print(length, {qk.lang.t("l15_part_" + part): round(loss, 2) for part, loss in parts.items()},
          round(score, 2))

# %% [markdown] lang="ko" slide="subslide"
# 길이 16에서는 반복된 구간의 손실이 거의 0이고 인덕션 점수도 높아요. 길이 8과 12에서는 어떤가요? 이 모델은 무엇을 배웠을까요? 골라서 `my_diagnosis`에 적어요.
#
# - `"a"`: 내용을 보고 복사하는 인덕션 헤드를 배웠어요.
# - `"b"`: 내용과 상관없이 정해진 거리만큼 앞을 봐요.
# - `"c"`: 아무것도 배우지 못했어요.
#
# 다른 길이(예: `repeat_lengths=(12, 16)`, `steps=1200`)로 `broken`을 다시 학습해 봐도 좋아요. 검사기는 그때의 `broken`을 직접 재니, 정답도 그 모델에 맞게 달라져요.

# %% [markdown] lang="en"
# At length 16 the loss on the repeat is nearly 0 and the induction score high. And at 8 and 12? What did the model learn? Write it in `my_diagnosis`:
#
# - `"a"`: an induction head that copies by content.
# - `"b"`: it looks a fixed distance back, whatever the content.
# - `"c"`: nothing.
#
# You may retrain `broken` with other lengths, say `repeat_lengths=(12, 16)`, `steps=1200`: the checker measures `broken` itself.

# %% exercise=true
my_diagnosis = ...                        # ko: "a", "b", "c" 중 하나
                                          # en: one of "a", "b", "c"
qk.checks.check_fixed_length(broken, my_diagnosis)

# %% solution=true
# en: worse than chance at other lengths: a position shortcut
my_diagnosis = "b"                        # ko: 다른 길이에서 우연 수준보다 나빠요: 위치 지름길
qk.checks.check_fixed_length(broken, my_diagnosis).as_solution()

# %% [markdown] lang="ko" slide="subslide"
# <details><summary><b>검사 함수로 확인한 뒤에 펼쳐 보세요</b></summary>
#
# 데이터가 지름길을 허락하면 모델은 지름길을 배워요. 반복 길이가 바뀌어야 복사만이 답이 돼요. 그리고 학습한 길이에서 잰 점수만으로는 둘을 구별할 수 없어요. 점수는 어디를 봤는지만 재고, **왜** 봤는지(내용이 같아서인지, 거리가 15라서인지)는 재지 않아요.
# </details>

# %% [markdown] lang="en"
# <details><summary><b>Open this after the check</b></summary>
#
# When the data allows a shortcut, the model learns it: only lengths that vary make copying the sole answer. And a score measured at the trained length alone cannot tell the two apart: it shows where the head looked, not **why** (the same content, or a distance of 15).
# </details>

# %% [markdown] lang="ko" slide="slide"
# ## 7. 진짜 모델에서 찾아보기: 11강의 MiniLM
#
# 11강의 MiniLM(레이어 6개, 헤드 12개)에 단어 10개를 두 번 이어 쓴 문장을 넣어요. 앞뒤에 [CLS]와 [SEP]이 붙어서, 구간은 위치 1에서, 반복은 위치 11에서 시작해요. 72개 헤드마다 같은 점수 두 개를 재요.

# %% [markdown] lang="en"
# ## 7. Looking in a real model: lesson 11's MiniLM
#
# Lesson 11's MiniLM (6 layers, 12 heads) reads ten words written twice, [CLS] and [SEP] around them: the segment starts at position 1, the repeat at 11. The same two scores for each of its 72 heads:

# %%
minilm = qk.pretrained.load_minilm()
words = "river chair apple music window garden paper cloud horse bread".split()
out = minilm([" ".join(words + words)])
text = induction.Sequences(out.input_ids, np.array([1]), np.array([11]), np.array([10]))
maps = np.stack(out.attentions)[:, 0]     # ko: (레이어, 헤드, n, n)
                                          # en: (layers, heads, n, n)
previous = np.array([[induction.previous_token_score(h) for h in layer] for layer in maps])
copying = np.array([[induction.induction_score(h[None], text) for h in layer] for layer in maps])
best = divmod(int(previous.argmax()), 12)   # ko: (레이어, 헤드)
                                            # en: (layer, head)
print(len(out.tokens[0]), previous.max().round(2), best)   # ko: 토큰 수, 가장 큰 이전 토큰 점수, 그 헤드
                                                           # en: tokens, best previous-token score, head
print(copying.max().round(2), round(1 / len(out.tokens[0]), 2))   # ko: 가장 큰 인덕션 점수, 고른 가중치
                                                                  # en: largest induction score, uniform
duplicate = np.array([[induction.duplicate_token_score(h[None], text) for h in layer]
                      for layer in maps])
print(duplicate.max().round(2), divmod(int(duplicate.argmax()), 12))   # ko: 같은 토큰 점수, 그 헤드
                                                                       # en: duplicate-token, its head

# %% [markdown] lang="ko" slide="subslide"
# 첫 번째 부품은 있어요. 레이어 0, 헤드 2는 11강에서 본 '앞 토큰' 헤드, 곧 완벽한 이전 토큰 헤드예요(1.00). 그런데 인덕션 점수는 모든 헤드에서 고른 가중치(1/22 ≈ 0.05)와 비슷해요. 인덕션 헤드는 없어요.
#
# 이상한 일이 아니에요. MiniLM은 **양방향 인코더**예요. 양방향이라 다음 토큰이 입력에 그대로 보여서, 앞에서 찾아 복사할 필요가 없어요. 인덕션 헤드는 **디코더**의 이야기예요. GPT 같은 디코더에서는 작은 모델부터 큰 모델까지 보고됐어요(Olsson 외 2022). 그래도 MiniLM은 반복을 알아봐요. 레이어 2, 헤드 9는 **같은 토큰 헤드**예요(마지막 줄). 각 단어가 같은 단어의 다른 쪽 복사본을 봐요.

# %% [markdown] lang="en"
# The first piece is there: layer 0, head 2 is lesson 11's perfect previous-token head (1.00). But every head's induction score is near even weights (1/22 ≈ 0.05): no induction head.
#
# No surprise: MiniLM is a **bidirectional encoder**: the next token is right there in its input, no need to find and copy it. Induction heads belong to **decoders**: they are reported in GPT-like models small and large (Olsson et al. 2022). MiniLM still sees the repeat: layer 2, head 9 is a **duplicate-token head** (the last line), each word looking at its other copy.

# %% [markdown] lang="ko" slide="slide"
# ## 8. 문맥 내 학습, 그리고 이 장난감 모델의 한계
#
# <b>문맥 내 학습(in-context learning)</b>은 매개변수를 바꾸지 않고 입력(문맥) 속 예시만 보고 일을 해내는 거예요. 학습이 끝나 매개변수가 고정된 우리 모델도 처음 보는 구간을 한 번 보고 두 번째에는 맞혀요. 아주 작은 문맥 내 학습이에요. Olsson 외(2022)는 작은 모델부터 큰 모델까지, 긴 문맥에서 얻는 이득이 인덕션 헤드가 생기는 학습 구간에서 급격히 커진다는 걸 보여 줬어요.
#
# 이 장난감이 보여 주지 않는 것도 있어요.
# - 실제 인덕션 헤드는 여러 헤드와 피드포워드 네트워크 사이에 섞여 있고, 똑같지 않은 패턴도 이어 가요(예: 앞에 나온 문장의 번역).
# - 문맥 내 학습이 모두 인덕션 헤드에서 나온다는 뜻은 아니에요. 헤드를 빼 보는 실험의 증거는 어텐션만 있는 작은 모델에서 나왔어요.
# - 전환 스텝은 이 설정의 값일 뿐이에요. 학습률이나 데이터가 바뀌면 달라져요(시드 0~4에서는 모두 전환이 일어나요).

# %% [markdown] lang="en"
# ## 8. In-context learning, and where the toy stops
#
# **In-context learning** is doing a task from examples in the input (the context), parameters unchanged. Ours, fixed after training, predicts a never-seen segment the second time: a tiny case. Olsson et al. (2022) found that in models small and large, the gain from longer context jumps in the training window where induction heads form.
#
# What the toy does not show:
# - Real induction heads sit among many heads and MLPs, and also continue fuzzier (translated) patterns.
# - That all in-context learning comes from induction heads: the knock-out evidence is from small attention-only models.
# - A fixed cliff: another learning rate or data moves it (seeds 0–4 all reach it).

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 반복되는 무작위 구간은 복사로만 맞힐 수 있고, 어텐션만 있는 2레이어 디코더가 이걸 1분 안에 배워요.
# - 이전 토큰 헤드(레이어 0)와 인덕션 헤드(레이어 1)는 레이어 1의 키로 이어진 회로예요. 지난번 이 토큰 다음에 온 것을 찾아 복사해요.
# - 손실이 급격히 떨어질 때(급격한 전환) 두 점수가 함께 뛰어올라요.
# - 레이어 0 헤드를 빼면 복사가 멈추고, 레이어 1의 키에서만 빼도 멈춰요. 레이어가 하나면 앞에 나온 토큰을 밀어 줄 뿐이에요. 학습한 길이에서 잰 점수만으로는 무엇을 배웠는지 알 수 없어요.
# - 매개변수를 바꾸지 않고 한 번 본 구간을 맞혀요. 아주 작은 문맥 내 학습이에요. 인코더인 MiniLM에는 인덕션 헤드가 없어요.
#
# [10. 복습으로 돌아가기](10_review.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - Only copying predicts a repeated random segment; a 2-layer attention-only decoder learns it in a minute.
# - A previous-token head (layer 0) and an induction head (layer 1) form one circuit, joined through layer 1's keys: find what followed this token last time, and copy it.
# - The loss drops (a phase change) just as both scores jump.
# - Copying stops without layer 0's head, even in layer 1's keys only; one layer only boosts earlier tokens; a score at the trained length alone cannot tell what was learned.
# - A segment seen once is predicted, parameters unchanged: tiny in-context learning. MiniLM, an encoder, has no induction head.
#
# [Back to 10. Review](10_review.ipynb)
