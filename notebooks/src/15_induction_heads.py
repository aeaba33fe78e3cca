# Lesson 15's source: make notebooks LESSON=15 builds notebooks/{ko,en}/15_induction_heads.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 15. 인덕션 헤드: 디코더가 복사를 배우는 순간
#
# 요즘 언어 모델은 프롬프트에 한 번 나온 이름을 다시 쓰고, 한 번 본 패턴을 이어 가요. Olsson 외(2022)는 이 능력의 상당 부분이 <b>인덕션 헤드(induction head)</b>에서 나온다는 증거를 보여 줬어요(Elhage 외 2021도 보세요). 인덕션 헤드는 앞 레이어의 헤드와 짝을 이뤄 일해요. 레이어 0의 헤드는 바로 앞 토큰을 보고(**이전 토큰 헤드**), 레이어 1의 헤드(인덕션 헤드)는 레이어 0이 각 자리에 적어 둔 '내 앞 토큰' 정보를 키에서 읽어 "지금 토큰이 앞에서 나왔을 때 그 **다음**에 왔던 토큰"을 찾아 복사해요. 원래 논문들은 GPU로 훨씬 큰 모델을 학습시켰어요. 이번 시간에는 14강의 역전파 연산으로 작은 디코더를 노트북 안에서 1분 안에 학습시키고, 이 두 헤드가 생기는 순간을 눈으로 봐요. 손실은 한동안 평평하다가 갑자기 뚝 떨어져요. 이걸 <b>급격한 전환(phase change)</b>이라고 해요.
#
# **이번 시간의 목표**
# - 복사로만 맞힐 수 있는 과제(무작위 토큰 뒤에 한 구간이 한 번 더 나오는 수열)와, 어텐션만 있는 2레이어 인과 모델을 알아봐요.
# - 14강의 `block_backward`와 연산으로 쓴 역전파를 유한 차분으로 검사하고, 모델을 학습시켜요.
# - 손실이 급격히 떨어지는 스텝에서 이전 토큰 점수와 인덕션 점수가 함께 뛰어오르는 걸 보고, 두 헤드의 어텐션 그림을 학습 전후로 비교해요.
# - 두 헤드가 함께 하는 일(<b>회로</b>)이 그림만이 아니라는 걸 실험으로 확인해요: 레이어 0 헤드를 빼면 복사가 멈추고, 1레이어 모델은 앞에 나온 토큰을 다시 밀어 줄 뿐 인덕션은 배우지 못해요. 반복 길이가 늘 같으면 무언가 다른 일이 일어나요. 무엇인지 여러분이 진단해요.
# - 11강의 MiniLM에서 같은 점수로 이 부품들을 찾아보고, 여기서 말하는 <b>문맥 내 학습(in-context learning)</b>이 무엇인지, 이 장난감 모델이 어디까지인지 정리해요.
#
# **수업 시간**: 약 80분

# %% [markdown] lang="en"
# # 15. Induction heads: the moment a decoder learns to copy
#
# Today's language models repeat a name they saw once in the prompt and continue a pattern seen once. Olsson et al. (2022) give evidence that much of that comes from **induction heads** (see also Elhage et al. 2021). An induction head works in a pair with a head of an earlier layer: a head in layer 0 looks at the token just before (a **previous-token head**), and the head in layer 1 (the induction head) reads, in its keys, the "my previous token" that layer 0 wrote into each position, so a query finds "the token that came **after** the current token the last time it appeared", and copies it. The papers trained far larger models on GPUs. In this lesson a small decoder trains inside the notebook in under a minute, with lesson 14's backward operations, and we watch the two heads form. The loss sits on a plateau, then drops off a cliff: a **phase change**.
#
# **Goals for this lesson**
# - Meet a task only copying can solve (random tokens, then a segment repeated once) and an attention-only, 2-layer causal model.
# - Check its backward pass, written with lesson 14's `block_backward` and operations, by finite differences, and train it.
# - See the previous-token score and the induction score jump at the step where the loss drops, and compare both heads' attention maps before and after.
# - Check that the **circuit** (what the two heads do together) is real, not a picture: without layer 0's head the copying stops; a 1-layer model never learns induction (A B … A → B), only to boost tokens seen earlier; and with repeats of one fixed length something else goes wrong: you will diagnose what.
# - Look for the same pieces in lesson 11's MiniLM with the same scores, and say what **in-context learning** means here and where this toy stops.
#
# **Class time**: about 80 minutes

# %% slide="skip"
import matplotlib.pyplot as plt
import numpy as np
import qkv_helpers as qk
from IPython.display import display
from qkv_helpers import induction
from qkv_helpers.source_code import code_without_docstring

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=3, suppress=True)

# %% [markdown] lang="ko" slide="slide"
# ## 1. 과제: 복사로만 맞힐 수 있는 수열
#
# 토큰은 0부터 31까지의 번호 32개예요. 단어 대신 번호만 있어요. 수열 하나는 토큰 32개로, 앞은 무작위 토큰(잡음)이고, 그 뒤에 무작위 **구간** 하나가 나오고, 같은 구간이 바로 한 번 더 나와요: [잡음][구간][구간]. 구간의 길이는 수열마다 8에서 16 사이로 새로 뽑아요. 그래서 모델은 반복이 어디서 시작하는지 미리 알 수 없어요. 왜 꼭 길이가 바뀌어야 하는지는 6절에서 봐요.
#
# 모델은 언제나 **다음 토큰**을 예측해요. 무작위 토큰은 무엇으로도 예측할 수 없으니, 잡음과 처음 나온 구간에서 가장 좋은 답은 32개 토큰 모두에 확률을 1/32씩 똑같이 주는 거예요. 그때 손실은 ln 32 ≈ 3.47이에요(**우연 수준**). 반복된 구간은 달라요. 구간의 두 번째 토큰부터는, 앞에서 같은 토큰이 나왔을 때 그 다음 토큰이 무엇이었는지 보면 맞힐 수 있어요. 반복된 구간의 첫 토큰은 맞힐 수 없어요. 처음 나온 구간의 마지막 토큰 다음에 무엇이 올지는 아직 아무도 모르니까요.

# %% [markdown] lang="en"
# ## 1. The task: sequences only copying can predict
#
# Tokens are 32 numbers, 0 to 31: no words, just ids. A sequence has 32 tokens: random tokens (noise), then a random **segment**, then the same segment once more: [noise][segment][segment]. Each sequence draws its segment's length anew, from 8 to 16, so the model cannot know in advance where the repeat starts. Section 6 shows why the length must vary.
#
# The model always predicts the **next token**. Nothing predicts a random token, so on the noise and on the first occurrence the best answer gives each of the 32 tokens 1/32, a loss of ln 32 ≈ 3.47 (**chance**). The repeat is different: from its second token on, the next token is the one that followed the same token in the first occurrence. The repeat's first token cannot be predicted: nothing yet says what follows the first occurrence's last token.

# %%
seqs = induction.make_sequences(3, seed=1)
print(seqs.tokens.shape)                  # ko: (수열, 토큰)
                                          # en: (sequences, tokens)
for tokens, first, repeat in zip(seqs.tokens, seqs.first, seqs.repeat):
    print(tokens[:first], tokens[first:repeat], tokens[repeat:])   # ko: 잡음, 구간, 반복
                                                                   # en: noise, segment, repeat
print(seqs.length, round(np.log(32), 2))  # ko: 구간 길이, 우연 수준 ln 32
                                          # en: segment lengths, chance ln 32

# %% [markdown] lang="ko" slide="subslide"
# 구간이 시작하는 위치를 first, 반복이 시작하는 위치를 repeat라고 해요(`seqs.first`, `seqs.repeat`, i는 0부터 세요). 반복된 구간의 위치 repeat + i(구간의 i번째 토큰)에서 다음 토큰은 구간의 i + 1번째 토큰이고, 그 토큰은 처음 나온 구간의 위치 first + i + 1에 있어요. `copying_targets`가 이 (수열, 쿼리 위치, 키 위치) 세 쌍을 모두 알려 줘요. 인덕션 헤드라면 바로 이 키를 봐야 해요.

# %% [markdown] lang="en"
# Call the position where the segment starts first, and where its repeat starts repeat (`seqs.first`, `seqs.repeat`; i counts from 0). At position repeat + i of the repeat (the segment's token i), the next token is the segment's token i + 1, which sits at position first + i + 1 of the first occurrence. `copying_targets` lists these (sequence, query position, key position) triples: the keys an induction head should attend to.

# %%
rows, queries, keys = induction.copying_targets(seqs)
print(queries[:5], keys[:5])              # ko: 첫 수열: 쿼리 위치 → 봐야 할 키 위치
                                          # en: first sequence: query position → the key to read
print(seqs.tokens[0, keys[:5]], seqs.tokens[0, queries[:5] + 1])   # ko: 그 키의 토큰 = 다음 토큰
                                                                   # en: that key's token = next token

# %% [markdown] lang="ko" slide="slide"
# ## 2. 모델: 어텐션만 있는 2레이어 디코더
#
# 07강의 마스크드(인과) 셀프 어텐션과 12강의 학습되는 위치 임베딩만 써요. 피드포워드도, 레이어 정규화도 없고, 레이어마다 헤드가 하나(헤드 크기 8)예요. d_model = 32이고, 각 레이어의 출력은 **잔차**로 더해져요(11강: 입력에 더해서 다음으로 넘겨요). 레이어는 11강의 MiniLM과 14강의 번역기가 쓰는 트랜스포머 블록(`qkv_helpers.block`)을 그대로 쓰고, 그중 셀프 어텐션만 남겨요.
#
# - x₀ = E[토큰] + P[위치] (B, n, 32)
# - x₁ = x₀ + attn₀(x₀) (레이어 0)
# - x₂ = x₁ + attn₁(x₁) (레이어 1)
# - 로짓 = x₂ · W_U (B, n, 32) (W_U: 벡터를 토큰 32개의 점수로 바꾸는 행렬)
#
# attn(x) = softmax(마스크(x·W_Q (x·W_K)ᵀ / √8)) · (x·W_V) · W_O예요. 레이어 1의 키는 x₁, 즉 레이어 0 헤드의 출력이 더해진 벡터에서 나와요. 이게 핵심이에요. B는 한 번에 넣는 수열 수(배치)예요. 손실은 14강처럼 정답 토큰에 준 확률의 −log이고, 학습 전 모델의 손실은 우연 수준(3.47)보다 조금 높아요.

# %% [markdown] lang="en"
# ## 2. The model: an attention-only, 2-layer decoder
#
# Lesson 07's masked (causal) self-attention and lesson 12's learned positions, nothing else: no feed-forward, no layer norm, one head per layer (head size 8), d_model = 32, each layer's output added to the **residual** stream (lesson 11). Each layer is the transformer block that lesson 11's MiniLM and lesson 14's translator run on (`qkv_helpers.block`), with only its self-attention left:
#
# - x₀ = E[tokens] + P[positions] (B, n, 32)
# - x₁ = x₀ + attn₀(x₀) (layer 0)
# - x₂ = x₁ + attn₁(x₁) (layer 1)
# - logits = x₂ · W_U (B, n, 32) (W_U: the matrix that turns a vector into the 32 tokens' scores)
#
# with attn(x) = softmax(mask(x·W_Q (x·W_K)ᵀ / √8)) · (x·W_V) · W_O. Layer 1's keys come from x₁, the stream with layer 0's head added: that is the point. B is the number of sequences fed in at once (the batch). The loss is lesson 14's, −log of the probability of the right token; the untrained model sits a little above chance (3.47).

# %%
model = induction.InductionModel(n_layers=2, seed=0)
logits, cache = model.forward(seqs.tokens[:, :-1])   # ko: 마지막 토큰 앞까지 읽고 다음을 예측
                                                     # en: read up to the last token, predict the next
print(model.n_parameters, logits.shape, cache["l1"].weights.shape)   # ko: (B, n, 어휘), 가중치 (B, 1, n, n)
                                                                # en: (B, n, V), weights (B, 1, n, n)
print({name: p.shape for name, p in model.params.items()})
parts = induction.loss_by_part(model, seqs)
print({qk.lang.t("l15_part_" + part): round(loss, 2) for part, loss in parts.items()})

# %% [markdown] lang="ko" slide="slide"
# ## 3. 역전파: 14강의 연산 그대로
#
# 역전파는 순전파를 반대 순서로 거슬러 올라가요. 레이어마다 14강에서 번역기를 학습시킨 `block_backward`를 부르고, 나머지(출력 행렬 W_U와 임베딩)는 14강의 `backprop` 연산(선형 변환, 임베딩)으로 계산해요. 잔차 덕분에 기울기 `d_x`는 레이어를 그대로 지나가고, 각 헤드는 자기 몫을 더해요. 쿼리, 키, 밸류가 모두 같은 x를 읽으니 x의 기울기는 세 갈래의 합이에요. 이 합은 `block_backward` 안에서 더해요.

# %% [markdown] lang="en"
# ## 3. The backward pass: lesson 14's operations
#
# The backward walks the forward in reverse order: for each layer, `block_backward`, the backward that trained lesson 14's translator; for the rest (the output matrix W_U and the embeddings), lesson 14's `backprop` operations (linear, embedding). The residual passes the gradient `d_x` through each layer unchanged and each head adds its part; queries, keys and values all read the same x, so x's gradient is the sum of the three, added inside `block_backward`.

# %%
print(code_without_docstring(induction.InductionModel.backward))

# %% [markdown] lang="ko" slide="subslide"
# 14강처럼 유한 차분으로 검사해요. 매개변수 배열 11개에서 각각 원소 10개를 골라, 그 원소를 ±ε만큼 바꿨을 때 손실이 얼마나 변하는지로 잰 기울기와 역전파가 준 기울기를 비교해요. 모델은 처음부터 float64(배정밀도)로 계산해요. 반올림 오차가 작아서 검사가 정확하고, 보통의 CPU에서는 어디서나 같은 숫자가 출력돼요. 출력은 검사한 배열 수, 가장 큰 상대 오차가 1e-6보다 작은지, 그리고 그 오차의 자릿수(10의 몇 제곱쯤인지)예요.

# %% [markdown] lang="en"
# As in lesson 14, finite differences check it: ten entries of each of the 11 parameter arrays, the gradient measured by nudging each picked entry by ±ε and measuring the loss, against the backward's. The model computes in float64 throughout: the check is accurate, and training gives the same printed numbers on ordinary CPUs. The output: how many arrays were checked, whether the largest relative error is below 1e-6, and its order of magnitude (the power of 10).

# %%
errors = induction.gradient_check(model, seqs.tokens)
largest = max(errors.values())
print(len(errors), largest < 1e-6, round(np.log10(largest)))   # ko: 배열 수, 오차 < 1e-6?, 10의 몇 제곱
                                                               # en: arrays; error < 1e-6?; power of 10

# %% [markdown] lang="ko" slide="slide"
# ## 4. 학습시키기
#
# 스텝마다 새 수열 32개(배치)를 뽑아, 기울기를 구하고 **Adam**(14강)으로 매개변수를 고쳐요. 학습률은 0.02로 일정하게 두고, 1,200스텝 학습해요. 50스텝마다 학습에 쓰지 않는 수열 200개로 네 가지를 재요: 처음 나온 구간의 손실, 반복된 구간(복사로 맞힐 수 있는 토큰)의 손실, 레이어 0의 **이전 토큰 점수**(바로 앞 토큰에 준 가중치의 평균), 레이어 1의 **인덕션 점수**(반복된 구간에서 앞서 나온 같은 토큰의 다음 토큰에 준 가중치의 평균). 처음 나온 구간의 손실은 구간 안의 쿼리들이 다음 토큰을 예측할 때의 손실이에요. 그래서 구간의 두 번째 토큰부터 반복의 첫 토큰까지를 예측하는데, 모두 복사로는 맞힐 수 없는 토큰이에요.
#
# 학습 시간은 컴퓨터마다 달라요(CPU 한 코어로 5~30초쯤).

# %% [markdown] lang="en"
# ## 4. Train it
#
# Each step draws 32 new sequences (a batch), computes the gradients and updates the parameters with **Adam** (lesson 14), at a constant learning rate of 0.02, for 1,200 steps. Every 50 steps, 200 held-out sequences measure four things: the loss on the first occurrence; the loss on the repeat (the tokens copying can predict); layer 0's **previous-token score** (its mean weight on the token just before); and layer 1's **induction score** (in the repeat, its mean weight on the token after the earlier occurrence of the current token). The loss on the first occurrence is that of the segment's queries predicting their next tokens: the segment's second token up to the repeat's first, none of which copying can predict.
#
# The training time depends on the computer (about 5–30 seconds on one CPU core).

# %% slide="subslide" ignore_output=true
bar = qk.widgets.induction_progress(1200)
display(bar)
run = induction.train(steps=1200, seed=0, callback=bar.update)
print(round(run.seconds, 1))              # ko: 걸린 시간(초)
                                          # en: seconds taken

# %% [markdown] lang="ko" slide="slide"
# ## 5. 두 헤드가 생기는 순간
#
# 아래 표는 100스텝 간격으로 뽑은 값이에요(스텝, 처음 나온 구간의 손실, 반복된 구간의 손실, 이전 토큰 점수, 인덕션 점수). 손실의 단위는 nat이에요(nat은 자연로그 ln으로 잰 손실의 단위예요). `cliff_step`은 반복된 구간의 손실이 우연 수준보다 1 nat 이상 내려간 첫 스텝이에요(그림의 회색 세로 점선).
#
# Olsson 외는 인덕션 헤드에 두 가지를 요구해요. 앞서 나온 같은 토큰의 다음 자리를 보는 것(접두사 맞추기)과, 그 자리의 토큰의 로짓을 올리는 것(복사)이에요. 복사는 밸류와 출력 행렬(W_V·W_O)을 거치는 길로 일어나서, 이 길을 OV 회로라고 불러요. 우리 인덕션 점수는 앞의 절반(접두사 맞추기)만 재요. 모델이 복사한다는 건 반복된 구간의 손실이 떨어지는 걸로 보여요. 레이어마다 헤드가 하나뿐이라, 이 복사가 지나갈 길은 레이어 1의 OV 회로뿐이에요.

# %% [markdown] lang="en"
# ## 5. The moment the two heads form
#
# The table gives every 100th step (step, loss on the first occurrence, loss on the repeat, previous-token score, induction score). Losses are in nats (the unit of a loss measured with the natural log, ln). `cliff_step` is the first step where the loss on the repeat is 1 nat or more below chance (the grey vertical dotted line).
#
# Olsson et al. also require copying: the head raises the logit of the token it attends to. Copying goes through the value and output matrices (W_V·W_O), a path called the OV circuit. Our score measures only the first half (prefix matching: looking at the token after the earlier occurrence); the drop in the repeat's loss shows that the model copies; with one head per layer, layer 1's OV is the only route for it.

# %% lang="ko" slide="subslide"
cliff = induction.cliff_step(run.history)
print(cliff)
print("스텝  처음 구간  반복 구간  이전 토큰  인덕션")
for r in run.history[::2]:
    print(f"{r['step']:5d}  {r['first']:.2f}  {r['repeat']:.2f}  "
          f"{r['previous_token']:.2f}  {r['induction']:.2f}")

# %% lang="en"
cliff = induction.cliff_step(run.history)
print(cliff)
print("step  first  repeat  previous-token  induction")
for r in run.history[::2]:
    print(f"{r['step']:5d}  {r['first']:.2f}  {r['repeat']:.2f}  "
          f"{r['previous_token']:.2f}  {r['induction']:.2f}")

# %% slide="subslide"
qk.plots.plot_induction_curves(run.history)
plt.show()                                # ko: 그림을 보여 주고 닫아요
                                          # en: shows the figure and closes it

# %% [markdown] lang="ko" slide="subslide"
# 반복된 구간의 손실은 150스텝쯤까지 우연 수준에 머물러요. 이걸 **평평한 구간**이라고 해요. 그동안 두 점수도 가중치를 고르게 퍼뜨렸을 때의 값 근처예요(이전 토큰 점수 약 0.1, 인덕션 점수 약 0.04). 그 뒤에는 3.5에서 3.0까지 천천히 내려가요. 이건 앞에 나온 토큰을 다시 밀어 주는 복사 덕분이에요(6절의 1레이어 모델도 3.2까지는 내려가요). 그러다 스텝 700 앞뒤의 200스텝 사이에 1.5쯤까지 뚝 떨어지고, 그 뒤 1.3 근처에 자리를 잡아요. 뚝 떨어질 **그때 두 점수가 함께** 뛰어올라요. 이전 토큰 헤드만 있거나 인덕션 헤드만 있으면 복사가 되지 않으니, 한쪽만 먼저 좋아져서는 손실이 줄지 않아요. 둘은 서로를 필요로 해서 함께 생겨요.
#
# 처음 나온 구간의 손실은 내려가지 않아요. 오히려 우연 수준보다 조금 **올라가요**. 무작위 토큰도 가끔 앞에 나왔던 토큰과 같아서, 인덕션 헤드는 거기서도 "지난번 다음 토큰"을 복사해 자신 있게 틀려요. 인덕션 헤드는 내용을 이해하지 않고 패턴을 복사해요. 지금 토큰이 처음 나온 토큰일 때도, 모델은 앞에 나왔던 토큰들에 확률을 조금 더 줘요. 반복된 구간에서 도움이 되는 습관이 여기서는 손해예요. 이 두 가지가 함께 손실을 우연 수준 위로 올려요. 반복된 구간의 손실도 0까지는 가지 않아요. 지금 토큰이 앞(잡음이나 구간 안)에 두 번 이상 나왔으면 어느 쪽을 복사할지 모호하거든요.

# %% [markdown] lang="en"
# For about 150 steps the loss on the repeat sits at chance (a **plateau**; both scores stay near what evenly spread weights give: previous-token ≈ 0.1, induction ≈ 0.04); then it slides slowly to about 3.0, about what boosting tokens seen earlier gives (section 6's 1-layer model gets to 3.2); then, around step 700, it drops off a cliff to about 1.5 within 200 steps, settling near 1.3, and **both scores jump at the same time**. A previous-token head alone, or an induction head alone, copies nothing, so neither improving first lowers the loss: each needs the other, and they form together.
#
# The loss on the first occurrence does not drop; it even rises a little **above** chance. A random token sometimes equals an earlier one, and the induction head then copies "what came next last time" there too, confidently wrong: it copies a pattern without understanding anything. And even where the current token is new, the model still favours tokens seen earlier (what helps on the repeat hurts here), so both push the loss above chance. Nor does the repeat's loss reach 0: when the current token occurs twice earlier (in the noise or in the segment), which occurrence to copy is ambiguous.

# %% [markdown] lang="ko" slide="subslide"
# 학습 전(위)과 후(아래) 두 헤드의 어텐션을 학습에 쓰지 않은 수열 하나에서 봐요. 행은 쿼리, 열은 키이고, 축에는 그 위치의 토큰 번호가 적혀 있어요. 흰 선은 구간과 반복이 시작하는 곳이에요. 주황 테두리는 레이어 0에서는 바로 앞 토큰, 레이어 1에서는 복사할 토큰(앞서 나온 같은 토큰의 다음 자리)이에요. 학습 후 레이어 0은 **바로 아래 대각선**(앞 토큰)을 그려요. 레이어 1은 반복된 구간에서, 같은 토큰이 처음 나온 자리보다 **한 칸 오른쪽** 칸들을 잇는 비스듬한 줄을 그려요. 복사할 곳이 없는 쿼리(잡음과 처음 나온 구간)는 어텐션 가중치를 한 자리에 몰아 두기도 해요. 그런 세로줄은 복사와 상관없어요. 레이어 0의 대각선은 처음 나온 구간에서 또렷하고, 반복된 구간의 뒤쪽에서는 끊겨요. 인덕션 헤드가 읽는 건 처음 나온 구간의 **키**라서, 회로에 필요한 건 앞쪽 대각선뿐이에요. 6절에서 레이어 0을 쿼리에서만 빼도 복사가 그대로인 것과 같은 이야기예요.

# %% [markdown] lang="en"
# Both heads' attention on one held-out sequence, before training (top) and after (bottom). Rows are queries, columns keys, labelled with the token at that position; white lines mark where the segment and the repeat start. Orange outlines: the previous token on layer 0; on layer 1, the token to copy (right after the earlier occurrence). After training, layer 0 draws the **sub-diagonal** (the previous token). Layer 1, in the repeat, draws a slanted line through the cells **one to the right** of where the same token first occurred. Queries with nothing to copy (the noise and the first occurrence) sometimes park their attention weight on one position; such a vertical column has nothing to do with copying. Layer 0's diagonal is sharp in the first occurrence and breaks off in the later part of the repeat. The induction head reads the first occurrence's **keys**, so the circuit needs the diagonal only there: the same story as section 6, where removing layer 0 from the queries alone leaves the copying as it was.

# %% slide="subslide"
qk.plots.plot_induction_maps(run.snapshots[0], run.snapshots[-1], run.shown,
                             steps=(run.history[0]["step"], run.history[-1]["step"]))
plt.show()

# %% [markdown] lang="ko" slide="subslide"
# 같은 수열의 위치별 손실이에요. 가로축은 예측할 토큰이에요. 잡음(배경 없음)과 처음 나온 구간(파란 배경)에서는 우연 수준 근처이고, 반복된 구간(주황 배경)의 **두 번째 토큰부터** 뚝 떨어져요. 그 사이 배경이 없는 토큰은 반복의 첫 토큰이라 맞힐 수 없어요. 반복된 구간에서 손실이 두 번 다시 튀어 올라요. 손실이 튀어 오른 두 곳에서 예측할 토큰은 1과 3이고, 그 쿼리는 바로 왼쪽 토큰인 3과 30이에요. 3과 30은 구간 안에 두 번씩 나오고, 그때마다 다음 토큰이 달라요. 3 다음에는 1과 30이, 30 다음에는 3과 12가 와요. 그래서 어느 쪽의 다음 토큰을 복사할지 모호해요.

# %% [markdown] lang="en"
# The loss at each position of the same sequence; the x axis is the token being predicted. Near chance on the noise (no shading) and the first occurrence (blue), it drops from the **second token of the repeat** (orange) on; the unshaded token between them is the repeat's first token, which nothing predicts. It jumps back up twice inside the repeat. At those two points the tokens being predicted are 1 and 3, and the queries are the tokens just left of them, 3 and 30. Both occur twice in the segment, followed by different tokens (3 by 1 and 30, 30 by 3 and 12), so which next token to copy is ambiguous.

# %%
losses = induction.loss_per_position(run.model, run.shown.tokens)[0]   # (n − 1,)
print(run.shown.first, run.shown.repeat, losses[run.shown.repeat[0]:].round(1))
qk.plots.plot_loss_per_position(losses, run.shown)
plt.show()

# %% [markdown] lang="ko" slide="slide"
# ## 위젯: 스텝을 넘기며 보기
#
# 슬라이더로 학습 스텝을 골라요. 위는 두 레이어의 어텐션, 아래는 손실과 점수 곡선이고 검은 세로선이 지금 스텝이에요.
#
# **해 볼 것**
# - 스텝 0에서 시작해 평평한 구간을 지나 보세요. 그림이 달라지나요?
# - 급격한 전환 근처에서 천천히 움직여 보세요. 대각선과 줄무늬 중 무엇이 먼저 보이나요?

# %% [markdown] lang="en"
# ## Widget: scrub through the steps
#
# Pick a training step with the slider: both layers' attention on top, the losses and scores below, the black line at the current step.
#
# **Try this**
# - Start at step 0 and move along the plateau. Does the picture change?
# - Move slowly around the cliff. Which appears first, the diagonal or the stripe?

# %% slide="subslide"
qk.widgets.induction_explorer(run)

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 레이어 1의 쿼리는 어디를 볼까요
#
# 학습에 쓰지 않은 새 수열 `puzzle`이에요. 아직 이 수열의 어텐션 그림은 본 적이 없어요. 레이어 1에서 `queries`의 세 위치에 있는 쿼리는 각각 어느 키 위치에 가장 큰 어텐션 가중치를 줄까요? 위치는 0부터 세요. 먼저 예측해서 `my_positions`에 위치 세 개를 `queries`와 같은 순서로 리스트로 적고 검사기로 확인해 보세요. 틀리면 검사기는 답 대신, 처음 틀린 쿼리에서 무엇을 잘못 생각했는지 알려 줘요.

# %% [markdown] lang="en"
# ## Try it: where does a layer-1 query look?
#
# `puzzle` is a new held-out sequence whose attention you have not seen. The layer-1 queries that read the tokens at the three positions in `queries`: which position gets each one's largest weight? Positions count from 0. Predict first, write the three positions in `my_positions` as a list, in the order of `queries`, then check. A wrong answer is told what went wrong at the first query it missed, not the answer.

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
# `induction.induction_score`와 같은 일을 하는 함수를 직접 만들어 봐요. `my_induction_score(weights, seqs)`는 헤드 하나의 어텐션 가중치 `weights` (B, n, n)와 수열 `seqs`를 받아, 반복된 구간의 쿼리 repeat + i가 키 first + i + 1에 준 어텐션 가중치의 평균을 돌려줘요(i = 0 … length − 2). 모든 수열에서 고른 가중치를 한데 모아 평균을 하나 내요. 검사기는 여러분이 본 적 없는 수열과 무작위 가중치로 패키지와 비교하고, 흔한 실수(같은 토큰 자체를 본 경우, 앞 토큰을 본 경우, 마지막 쿼리까지 센 경우, 평균 대신 합, 수열마다 평균을 먼저 낸 경우)는 따로 알려 줘요. 패키지의 `induction_score`나 `copying_targets`를 부르는 답은 받지 않아요.

# %% [markdown] lang="en"
# ## Try it: write the induction score
#
# Write a function that does what `induction.induction_score` does: `my_induction_score(weights, seqs)` takes one head's attention `weights` (B, n, n) and the sequences `seqs`, and returns the mean weight the repeat's query repeat + i puts on key first + i + 1 (i = 0 … length − 2): one mean over all these pairs of all sequences together. The checker compares it with the package on sequences and random weights you have not seen, names the usual mistakes (the earlier token itself, the previous token, counting the last query, a sum instead of a mean, averaging each sequence first), and refuses an answer that calls the package's `induction_score` or `copying_targets`.

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
# 어텐션 그림이 그럴듯하다고 그 헤드가 그 일을 한다는 보장은 없어요(14강: 어텐션은 정렬이 아니에요). 그래서 실험으로 확인해요.
#
# **헤드 빼기(knock-out).** 학습한 모델에서 레이어 0 헤드의 출력을 잔차에서 빼거나(`"head0"`), 레이어 1의 **키**에만 들어가지 못하게 해요(`"head0_keys"`, 쿼리와 밸류는 그대로 봐요). 비교하려고 쿼리에서만(`"head0_queries"`), 밸류에서만(`"head0_values"`) 빼 보기도 해요. 키에서만 빼도 복사가 멈춘다면, 레이어 1은 정말로 레이어 0이 키에 적어 둔 "내 앞 토큰은 ○" 정보로 찾고 있던 거예요.

# %% [markdown] lang="en"
# ## 6. A circuit, not a picture
#
# A plausible attention map does not prove that the head does that job (lesson 14: attention is not alignment). So we test it.
#
# **Knock-out.** In the trained model, take layer 0's head out of the residual stream (`"head0"`), or out of layer 1's **keys** only (`"head0_keys"`; its queries and values still see it). As controls, take it out of the queries only (`"head0_queries"`) or the values only (`"head0_values"`). If removing it from the keys alone stops the copying, layer 1 really finds its target through what layer 0 wrote into the keys: "the token before me is ○".

# %%
for knock_out in (None, "head0", "head0_keys", "head0_queries", "head0_values"):
    # ko: None: 아무것도 빼지 않음. 출력: 처음 나온 구간, 반복된 구간의 손실
    # en: None: nothing removed. Printed: loss on the first occurrence, on the repeat
    parts = induction.loss_by_part(run.model, run.evaluation, knock_out=knock_out)
    print(knock_out, {qk.lang.t("l15_part_" + part): round(loss, 2)
                      for part, loss in parts.items()})

# %% [markdown] lang="ko" slide="subslide"
# `"head0"`과 `"head0_keys"` 모두 반복된 구간의 손실이 우연 수준 근처(3.3)로 돌아가고, 처음 나온 구간은 거의 그대로예요. 키에서만 빼도 복사가 멈추니, 레이어 1은 레이어 0이 키에 적어 둔 정보로 찾고 있던 거예요. 쿼리나 밸류에서만 빼면 거의 아무것도 바뀌지 않아요. 두 헤드는 키를 통해 이어져 있어요(**K-합성**, K-composition).
#
# **1레이어 모델.** 레이어가 하나뿐이면 헤드 하나가 "앞 토큰이 지금 토큰과 같은 자리"를 찾아야 하는데, 키에는 그 자리 자신의 토큰과 위치만 들어 있어요. 앞 토큰의 정보를 키에 옮겨 줄 레이어가 없어요. 같은 방법으로, 2레이어 모델과 같은 1,200스텝 학습해 봐요.

# %% [markdown] lang="en"
# `"head0"` and `"head0_keys"` both bring the loss on the repeat back near chance (3.3), and leave the first occurrence about as it was. Removing layer 0's head from the keys alone stops the copying: layer 1 finds its target through what layer 0 wrote there. Removing it from the queries or the values changes nothing: the composition is through the keys (**K-composition**).
#
# **A 1-layer model.** With one layer, its single head would have to find "the position whose previous token equals mine", but a key holds only its own token and position: no layer has moved the previous token into it. Train one the same way, for 1,200 steps like the 2-layer model.

# %%
one_layer = induction.train(steps=1200, n_layers=1, seed=0)
last = one_layer.history[-1]              # ko: 스텝, 반복된 구간의 손실, 인덕션 점수, 전환 스텝
                                          # en: step, loss on the repeat, induction score, cliff
print(last["step"], round(last["repeat"], 2), round(last["induction"], 2),
      induction.cliff_step(one_layer.history))

# %% [markdown] lang="ko" slide="subslide"
# 1레이어 모델의 반복된 구간 손실은 우연 수준 근처(3.2)에 머물고, 급격한 전환도 없어요(`None`). 같은 1,200스텝 동안 2레이어 모델은 스텝 700에서 급격한 전환을 지나 1.3까지 내려갔어요. 조금 내려가는 건 토큰 단위의 복사 덕분이에요. 헤드가 앞에 나온 토큰을 모두 조금씩 밀어 줘요. "앞에 나온 토큰은 다시 나올 것 같다"는 거예요. Elhage 외는 이걸 원시적인 문맥 내 학습이라고 불러요. 하지만 레이어가 하나뿐이면 앞에 나온 자리의 **다음**에 온 토큰을 복사할 수는 없어요. 그게 인덕션이에요.

# %% [markdown] lang="en"
# The 1-layer model's loss on the repeat stays near chance (3.2), with no cliff (`None`); in the same 1,200 steps the 2-layer model passed its cliff at step 700 and got down to 1.3. The small drop is copying by token: the head raises every token seen earlier: "a token seen earlier is likely to come again". Elhage et al. call this primitive in-context learning. Without a second layer it cannot copy *what came after* the earlier occurrence, which is induction.

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 망가뜨려 보기 (길이가 늘 같은 반복)
#
# 이번에는 반복 길이를 **늘 16**으로 고정해서 학습해요. 그러면 수열이 [토큰 16개짜리 구간][같은 구간]뿐이라, 반복된 구간에서 다음 토큰의 답은 언제나 지금 위치에서 15칸 앞에 있어요. 아래 셀은 고정 길이로 학습한 모델을 길이 16에서 재고(인덕션 점수도), 학습에 없던 길이 8과 12에서도 재요.

# %% [markdown] lang="en"
# ## Try it: break it (repeats of one length)
#
# Now train with the repeat length **always 16**. Every sequence is then [a segment of 16 tokens][the same segment], and each repeated token's answer always sits "15 positions back". The cell below measures the fixed-length model at length 16 (induction score included), then at lengths 8 and 12, never seen in training.

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
# 길이 16에서는 반복된 구간의 손실이 거의 0이고 인덕션 점수도 높아요. 그런데 다른 길이에서는 손실이 우연 수준(3.47)보다 훨씬 커요. 이 모델은 무엇을 배웠을까요? 아래에서 골라 `my_diagnosis`에 적어요.
#
# - `"a"`: 내용을 보고 복사하는 인덕션 헤드를 배웠어요.
# - `"b"`: 내용과 상관없이 정해진 거리만큼 앞을 봐요.
# - `"c"`: 아무것도 배우지 못했어요.
#
# 길이를 바꿔(예: `repeat_lengths=(12, 12)`, 또는 원래의 `(8, 16)`) 다시 학습해 보고 검사기에 물어봐도 좋아요. 검사기는 `broken`을 직접 재서 판단해요. 다시 학습했다면 결과를 `broken`에 넣어야 검사기가 그 모델을 재요.

# %% [markdown] lang="en"
# At length 16 the loss on the repeat is nearly 0 and the induction score is high. At other lengths the loss is far above chance (3.47). What did this model learn? Choose, and write it in `my_diagnosis`:
#
# - `"a"`: an induction head that copies by content.
# - `"b"`: it looks a fixed distance back, whatever the content.
# - `"c"`: nothing.
#
# You may retrain with other lengths (say `repeat_lengths=(12, 12)`, or the usual `(8, 16)`) and ask the checker again: it measures `broken` itself, so store the new run in `broken`.

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
# 이 실험에서 두 가지를 배워요. 첫째, 과제의 데이터가 지름길을 허락하면 모델은 지름길을 배워요. 반복 길이가 수열마다 바뀌어야 복사만이 답이 돼요. 둘째, **학습한 길이(16)에서 잰 인덕션 점수만으로는** 둘을 구별할 수 없어요. 점수는 "그 자리를 봤나"만 재고, **왜** 그 자리를 봤는지(내용이 같아서인지, 거리가 15라서인지)는 재지 않아요. 그래서 길이를 바꿔 보는 것 같은 실험이 필요해요.
# </details>

# %% [markdown] lang="en"
# <details><summary><b>Open this after the check</b></summary>
#
# Two lessons here. First, when the data allows a shortcut, the model learns the shortcut: only with lengths that vary per sequence is copying the sole answer. Second, **an induction score measured at the trained length (16) alone cannot tell the two apart**: it measures whether the head looked at that position, not **why** (the same content, or a distance of 15). That takes an experiment, such as changing the length.
# </details>

# %% [markdown] lang="ko" slide="slide"
# ## 7. 진짜 모델에서 찾아보기: 11강의 MiniLM
#
# 11강의 MiniLM(레이어 6개, 헤드 12개)에 단어 10개를 두 번 이어 쓴 문장을 넣고, 72개 헤드마다 같은 점수 두 개를 재요. 토큰은 [CLS], 단어 10개, 같은 단어 10개, [SEP]이라서, 구간은 위치 1에서, 반복은 위치 11에서 시작해요.

# %% [markdown] lang="en"
# ## 7. Looking in a real model: lesson 11's MiniLM
#
# Give lesson 11's MiniLM (6 layers, 12 heads) a text of ten words written twice, and measure the same two scores for each of its 72 heads. The tokens are [CLS], the ten words, the same ten, [SEP]: the segment starts at position 1, the repeat at 11.

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
# 첫 번째 부품은 있어요. 레이어 0, 헤드 2는 11강에서 본 대로 이전 토큰 점수가 1.00인 완벽한 이전 토큰 헤드예요(11강에서는 '앞 토큰' 헤드라고 불렀어요). 그런데 인덕션 점수는 어느 헤드에서도 고르게 나눈 가중치(1/22 ≈ 0.05)와 비슷해요. MiniLM에는 우리 점수로 잰 인덕션 헤드가 없어요.
#
# 이건 이상한 일이 아니에요. MiniLM은 **양방향 인코더**예요. 모든 토큰이 앞뒤를 다 보고, 다음 토큰을 예측하도록 학습한 적도 없어요. MiniLM은 가려 둔 단어를 맞히는 큰 BERT류 모델을 흉내 내도록 작게 줄여(증류) 만들었고, 그 뒤 문장 임베딩을 만들도록 더 학습했어요. "지난번에 이 토큰 다음에 온 것"을 복사할 이유가 없어요. 맞혀야 할 다음 토큰이 입력에 그대로 있으니까요. 인덕션 헤드는 **다음 토큰을 예측하는 디코더**의 이야기예요. GPT 같은 디코더 모델에서는 작은 모델부터 큰 모델까지 인덕션 헤드가 나타난다고 보고됐어요(Olsson 외 2022). 또 우리 점수는 한 가지 패턴만 재요. 점수가 낮다고 그 모델이 반복을 전혀 쓰지 않는다는 뜻은 아니에요. 실제로 마지막 줄을 보면, 레이어 2, 헤드 9는 **같은 토큰 헤드**예요. 각 단어가 어텐션 가중치의 대부분을 같은 단어의 다른 쪽 복사본(앞에 나온 것이든 뒤에 나올 것이든)에 줘요(`induction.duplicate_token_score`: 구간과 반복의 각 토큰이 다른 쪽 복사본에 준 가중치의 평균). 양방향 인코더는 반복을 알아보지만, "다음 토큰"을 복사하지는 않아요.

# %% [markdown] lang="en"
# The first piece is there: layer 0, head 2 is lesson 11's perfect previous-token head (score 1.00). But every head's induction score is close to what even weights would give (1/22 ≈ 0.05): MiniLM has no induction head by our score.
#
# That is not strange. MiniLM is a **bidirectional encoder**: every token sees both sides, and it was never trained to predict the next token. It was made small by training it to imitate a larger BERT-style model that fills in hidden words (distillation), then trained further to make sentence embeddings. It has no reason to copy "what followed this token last time": the token it would predict is right there in its input. Induction heads belong to **decoders that predict the next token**; in decoder models like GPT they have been reported from small models to large ones (Olsson et al. 2022). And our score measures one pattern: a low score does not mean the model ignores repetition altogether. Indeed, the last line shows that layer 2, head 9 is a **duplicate-token head**: each word puts most of its weight on the other copy of the same word, earlier or later (`induction.duplicate_token_score`: the mean weight each token of the segment and of the repeat puts on its other copy). The bidirectional encoder notices the repeat; it just does not copy "the next token".

# %% [markdown] lang="ko" slide="slide"
# ## 8. 문맥 내 학습, 그리고 이 장난감의 한계
#
# <b>문맥 내 학습(in-context learning)</b>은 매개변수를 바꾸지 않고 입력(문맥) 속의 예시만 보고 새 일을 해내는 거예요. 우리 모델은 학습이 끝난 뒤 매개변수가 고정돼 있는데도, 한 번도 본 적 없는 구간을 한 번 보고 두 번째에는 맞혀요. 아주 작은 문맥 내 학습이에요. Olsson 외(2022)는 작은 모델부터 큰 모델까지, 문맥이 길수록 뒤쪽 토큰의 손실이 줄어드는 정도(논문은 이를 문맥 내 학습 점수라고 불러요)가 학습의 같은 좁은 구간, 인덕션 헤드가 생기는 시기에 급격히 좋아진다는 걸 보여 줬어요.
#
# 이 장난감이 보여 주지 않는 것도 분명히 해 둬요.
# - 피드포워드도, 레이어 정규화도 없고, 레이어마다 헤드가 하나예요. 실제 모델의 인덕션 헤드는 여러 헤드와 MLP에 섞여 있고, 정확한 복사뿐 아니라 '비슷한 것 이어 가기'(번역, 패턴 바꾸기)도 해요.
# - 무작위 토큰의 정확한 반복만 다뤄요. 큰 모델의 문맥 내 학습(예시 몇 개로 새 과제 풀기)이 모두 인덕션 헤드에서 나온다는 증거는 아니에요. Olsson 외도 작은 어텐션 전용 모델에서는 인과적인 증거를, 큰 모델에서는 정황 증거를 제시했어요.
# - 학습률, 초기값, 데이터가 바뀌면 전환의 스텝도 바뀌어요. 이 수업은 시드 0으로 고정해요(시드 0~4는 모두 전환에 닿아요).

# %% [markdown] lang="en"
# ## 8. In-context learning, and where the toy stops
#
# **In-context learning** is doing a new task from examples in the input (the context), with the parameters unchanged. After training our model's parameters are fixed, yet a segment it has never seen, seen once, is predicted the second time: a very small case of in-context learning. Olsson et al. (2022) showed that in models small and large, how much the loss of later tokens improves with more context (their in-context learning score) improves sharply in the same narrow window of training in which induction heads form.
#
# Be clear about what the toy does not show:
# - No feed-forward, no layer norm, one head per layer. A real model's induction heads sit among many heads and MLPs, and do fuzzier things than exact copying (continuing a translated or transformed pattern).
# - Exact repeats of random tokens only. It is not evidence that all of a large model's in-context learning (solving a new task from a few examples) comes from induction heads; Olsson et al. gave causal evidence in small attention-only models and correlational evidence in large ones.
# - Another learning rate, initialisation or data moves the cliff's step. The lesson pins seed 0 (seeds 0–4 all reach the cliff).

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 무작위 토큰 뒤에 구간이 반복되는 수열에서, 반복된 구간은 복사로만 맞힐 수 있어요. 어텐션만 있는 2레이어 디코더가 이걸 1분 안에 배워요.
# - 두 헤드가 짝을 이뤄요. 레이어 0의 이전 토큰 헤드가 각 위치에 "내 앞 토큰"을 적어 두면, 레이어 1의 인덕션 헤드가 그 키로 "지난번 같은 토큰의 다음 자리"를 찾아 복사해요.
# - 손실은 평평한 구간과 느린 내리막 뒤에 급격히 떨어지고(급격한 전환), 두 점수가 바로 그때 함께 뛰어올라요.
# - 회로는 실험으로 확인해요. 레이어 0 헤드를 빼면 복사가 멈춰요. 레이어 1의 키에서만 빼도 멈추고, 쿼리나 밸류에서만 빼면 그대로예요. 1레이어 모델은 앞에 나온 토큰을 다시 밀어 줄 뿐, 인덕션은 배우지 못해요. 길이가 고정된 데이터에서 무엇이 잘못되는지는 '망가뜨려 보기' 실습에서 직접 진단했어요. 학습한 길이에서 잰 점수만으로는 모델이 무엇을 배웠는지 알 수 없어요.
# - 매개변수를 바꾸지 않고 문맥 속 구간을 한 번 보고 두 번째에 맞혀요. 이게 이 모델의 아주 작은 문맥 내 학습이에요. 큰 모델의 문맥 내 학습이 모두 여기서 나온다는 뜻은 아니에요.
# - MiniLM에는 이전 토큰 헤드는 있지만, 다음 토큰을 예측하지 않는 양방향 인코더라서 인덕션 헤드는 보이지 않아요.
#
# [10. 복습으로 돌아가기](10_review.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - In random tokens followed by a repeated segment, only copying predicts the repeat; an attention-only 2-layer decoder learns it in under a minute.
# - Two heads work as a pair: layer 0's previous-token head writes "my previous token" into each position, and layer 1's induction head uses that key to find "the position after the last occurrence of my token", and copies it.
# - The loss sits on a plateau, slides slowly, then drops (a phase change); both scores jump at that moment.
# - Experiments show the circuit. Without layer 0's head the copying stops. Removing it from layer 1's keys alone stops it too; removing it from the queries or the values alone leaves it. A 1-layer model only boosts tokens seen earlier and never learns induction (A B … A → B). What goes wrong with a fixed length you diagnosed yourself in "Try it: break it"; a score measured at the trained length alone cannot tell what the model learned.
# - With its parameters unchanged, the model sees a segment in its context once and predicts it the second time: this model's very small in-context learning. That does not mean all of a large model's in-context learning comes from here.
# - MiniLM has a previous-token head, but as a bidirectional encoder that never predicts the next token, no induction head shows.
#
# [Back to 10. Review](10_review.ipynb)
