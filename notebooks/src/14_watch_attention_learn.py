# Lesson 14's source: make notebooks LESSON=14 builds notebooks/{ko,en}/14_watch_attention_learn.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 14. 어텐션이 배우는 걸 지켜보기: numpy로 학습하는 작은 번역기
#
# 08강의 첫 번째 정렬 그림은 우리가 손으로 정해 넣은 숫자로 그린 거였어요. "앉았다"가 "sat"을 보는 건 우리가 그렇게 정해 뒀기 때문이었죠. 그 옆의 학습된 그림은 이번 시간에 만들 번역기에서 나왔어요. 그럼 학습된 그림의 W_Q와 W_K는 어디서 왔을까요? 이번 시간에는 영어→한국어 번역기를 노트북 안에서 **처음부터 학습**시켜요. 학습은 **손실**(모델의 답이 정답과 얼마나 다른지 나타내는 숫자)을 줄이는 방향으로 매개변수를 조금씩 고치는 일이에요. 그 방향을 알려 주는 게 **기울기**이고, 기울기를 출력 쪽에서 입력 쪽으로 거꾸로 계산해 나가는 방법이 **역전파**예요. 입력에서 출력으로 차례로 계산해 나가는 건 **순전파**라고 해요. 역전파로 기울기를 구하는 코드를 numpy로 하나하나 직접 짜 두었고, 학습은 몇 초면 끝나요. 그동안 크로스 어텐션이 고르게 퍼진 상태에서 단어 정렬로 바뀌는 걸 지켜봐요.
#
# **이번 시간의 목표**
# - 작은 문법으로 만든 영어–한국어 문장 쌍과 정답 정렬을 보고, 학습에 없던 조합을 따로 두는 이유를 알아봐요.
# - 인코더–디코더의 역전파를 식으로 읽고, 유한 차분으로 기울기를 검사해요. 어텐션의 역전파를 직접 구현해 봐요.
# - 번역기를 학습시키고, 크로스 어텐션이 정렬이 되는 걸 스텝마다 봐요: 동사는 문장 끝으로, 전치사는 명사 뒤의 후치사로 가요.
# - 어텐션이 곧 정렬은 아니라는 걸 봐요. 인코더 셀프 어텐션을 켜면, 번역은 맞는데도 어텐션은 정답 단어 대신 한국어에 대응하는 단어가 없는 토큰("the"나 &lt;eos&gt;)을 봐요.
# - 역전파가 무엇을 메모리에 남겨 둬야 하는지 재 봐요. 일반적인 방법은 어텐션 가중치 P를 통째로 남기고, FlashAttention-2는 출력과 함께 행마다 숫자 하나(로그-합-지수, log-sum-exp)만 남긴 뒤 역전파 때 P를 다시 계산해요.
#
# **수업 시간**: 약 115분

# %% [markdown] lang="en"
# # 14. Watch attention learn: a small translator trained in numpy
#
# Lesson 08's first alignment picture was made by hand: "앉았다" looked at "sat" because we set it up that way. The trained picture next to it came from the translator this lesson builds. So where do its W_Q and W_K come from? In this lesson we **train an English→Korean translator from scratch**, inside the notebook. Every gradient of the backward pass is written out in numpy, and training takes a few seconds. While it trains, we watch its cross-attention go from spread out to the word alignment.
#
# **Goals for this lesson**
# - Look at sentence pairs made by a small grammar, with their gold alignment, and see why combinations never seen in training are set aside.
# - Read the backward pass of an encoder–decoder as formulas and check its gradients with finite differences; write attention's backward yourself.
# - Train the translator and watch its cross-attention become the alignment, step by step: the verb moves to the end, the preposition becomes a postposition after the noun.
# - See that attention is not alignment: with encoder self-attention on, the translation is right while a head reads another token, one that carries no word of its own (a "the" or &lt;eos&gt;).
# - Measure what the backward pass must keep: plain training keeps all of P; FlashAttention-2 keeps one log-sum-exp per row (and the output) and recomputes P.
#
# **Class time**: about 115 minutes

# %% slide="skip"
import numpy as np
import qkv_helpers as qk
from IPython.display import display
from qkv_helpers import backprop, toy_corpus, translator
from qkv_helpers.classroom.source_code import code_without_docstring
from qkv_helpers.measure import attention_backward

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=3, suppress=True)

# %% [markdown] lang="ko" slide="slide"
# ## 1. 작은 문법, 정답 정렬
#
# 문장은 모두 한 가지 틀에서 나와요: the [형용사] 주어 동사 전치사 the [형용사] 장소. 한국어로 옮기면 어순이 두 군데 바뀌어요. 동사는 맨 끝으로 가고, 전치사(on, in, under, behind)는 명사 **뒤에** 오는 후치사(위에, 안에, 아래에, 뒤에)가 돼요. 후치사는 영어 전치사처럼 쓰이지만 명사 뒤에 오는 말이에요. 학교 문법으로 보면 위·안·아래·뒤라는 명사에 조사 "에"가 붙은 거예요. 토큰은 영어는 단어 하나, 한국어는 어절(띄어쓰기로 나뉜 덩어리, 예: 고양이가) 하나예요. 조사는 어절 안에 붙어 있어요. `alignment`에는 한국어 토큰마다 그 토큰이 옮긴 영어 단어의 위치가 들어 있어요(위치는 0부터 세요. 맨 앞 "the"가 0번이에요). "the"는 한국어에 대응하는 토큰이 없어요.

# %% [markdown] lang="en"
# ## 1. A small grammar, and the gold alignment
#
# Every sentence comes from one pattern: the [adjective] subject verb preposition the [adjective] place. Korean reorders it twice: the verb goes to the end, and the preposition (on, in, under, behind) becomes a postposition **after** the noun (위에, 안에, 아래에, 뒤에). There is one token per English word and one per Korean eojeol (space-separated word). `alignment` gives, for each Korean token, the position of the English word it translates; "the" has no Korean token.

# %% [markdown] lang="ko" slide="subslide"
# 단어를 아무렇게나 조합하지는 않아요. 모든 문장이 말이 되게 만들어요. 주어는 모두 동물이에요. 선생님 같은 사람이 주어면 "선생님께서 앉으셨다"처럼 높임말을 써야 해서 이 작은 문법으로는 자연스럽게 옮길 수 없거든요. "in"(안에)은 상자·가방·차·집처럼 안이 있는 장소에만 쓰고, 큰 동물은 상자 안이나 의자 아래에 들어가지 않고, 색깔은 그 색이 어울리는 명사에만 붙여요. 동사도 어울리는 전치사하고만 써요("매트 위에 숨었다", "상자 안에 섰다"는 없어요). 말과 사슴은 앉지 않고, 새는 눕지 않고, 개구리는 서지 않아요. 말이 안 되는 조합이면 `toy_corpus.nonsense`가 그 이유를 알려 줘요.

# %% [markdown] lang="en"
# Words are not combined at random: every sentence makes sense. The subjects are all animals (a person such as a teacher would need honorific verbs in Korean, 선생님께서 앉으셨다); "in" (안에) goes only with places that have an inside (box, bag, car, house); a big animal does not get into a box or under a chair; a colour goes only with nouns it suits; a verb goes only with the prepositions that suit it (no "hid on the mat", no "stood in the box"); a horse or a deer does not sit, a bird does not lie down, a frog does not stand. For a combination that makes no sense, `toy_corpus.nonsense` says why.

# %%
pair = toy_corpus.build_sentence("cat", "sat", "on", "mat", place_adjective="red")
print(pair.english)
print(pair.korean)
print(pair.alignment)                     # 고양이가→cat(1), 빨간→red(5), 매트→mat(6), 위에→on(3), 앉았다→sat(2)

# %% [markdown] lang="ko"
# 주격 조사도 규칙으로 붙여요. 마지막 음절에 받침이 있으면 "이"(곰이), 없으면 "가"(개가)예요. 한글 음절의 유니코드 번호는 0xAC00 + (초성·21 + 중성)·28 + 종성이라서, <b>(번호 − 0xAC00)</b>을 28로 나눈 나머지가 종성 번호예요. 0이면 받침이 없고, 0이 아니면 있어요.

# %% [markdown] lang="en"
# The subject particle follows a rule too: "이" after a final consonant (곰이), "가" after a vowel (개가). A Hangul syllable's code point is 0xAC00 + (initial·21 + vowel)·28 + final, so the remainder of **(code point − 0xAC00)** by 28 is the final consonant's number: 0 means none.

# %%
print([(noun, (ord(noun[-1]) - 0xAC00) % 28, toy_corpus.subject_particle(noun))
       for noun in ("곰", "개", "닭", "고양이")])

# %% [markdown] lang="ko" slide="subslide"
# 학습 문장 3,000개, 검증 문장(학습에 쓰지 않고 확인에만 쓰는 문장) 200개, 그리고 **따로 둔** 문장 200개를 만들어요. 따로 둔 문장은 (주어, 장소) 조합이 학습 문장에 한 번도 나오지 않은 것들이에요. 단어는 모두 학습에서 봤지만 이 주어와 이 장소가 함께 나온 적은 없어요. 이 문법에서는 한국어 단어 하나하나가 영어 단어 하나만 보면 정해지니, 어려운 시험은 아니에요. 그래도 외운 문장이 아니라는 건 확실해요. 아래의 정확도와 정렬 결과는 모두 이 따로 둔 문장들로 잰 거예요.

# %% [markdown] lang="en"
# We make 3,000 training sentences, 200 validation sentences and 200 **held-out** sentences. A held-out sentence has a (subject, place) combination that never occurs in training: every word was seen, never this subject with this place. In this grammar each Korean word depends on one English word only, so it is not a hard test; but these are surely not memorised sentences. Every result below is measured on them.

# %%
corpus = toy_corpus.make_corpus()
print(len(corpus.train), len(corpus.valid), len(corpus.heldout))
held = corpus.heldout[0]
print(" ".join(held.english), "→", " ".join(held.korean))
seen = {p.words[1::4] for p in corpus.train}      # ko: 학습 문장의 (주어, 장소) 조합
                                                  # en: the (subject, place) pairs of training
print(held.words[1::4], held.words[1::4] in seen)  # ko: (주어, 장소), 학습에 나왔나요?
                                                   # en: (subject, place), seen in training?

# %% [markdown] lang="ko" slide="slide"
# ## 2. 모델: 09강의 TinyTransformer와 같은 구조
#
# 인코더 레이어 하나, 디코더 레이어 하나, d_model = 32, 헤드 1개예요. 구조는 09강에서 디코딩에 썼던 `TinyTransformer`와 똑같아요. 각 부분 앞에서 레이어 정규화를 하고(pre-LN), 피드포워드는 ReLU(음수는 0으로, 양수는 그대로 두는 함수)를 쓰고, 위치는 사인파 위치 인코딩으로 넣고, 편향은 없어요. 그래서 학습한 매개변수를 `TinyTransformer`에 넣을 수 있어요. 이 번역기가 쓰지 않는 인코더 셀프 어텐션(아래)의 매개변수(W_Q, W_K, W_V, W_O)에는 0을 채워서, 아무것도 더하지 않게 해요.
#
# 하나만 단순하게 했어요. 첫 번째 모델에서는 **인코더 셀프 어텐션을 꺼 둬요**(`encoder_self_attention=False`). 그러면 인코더의 출력 벡터 하나하나가 자기 단어와 위치 정보만 담고 있어서, 크로스 어텐션이 단어를 읽으려면 그 단어의 자리를 봐야 해요. 학습이 어텐션 가중치를 왜 그 자리로 옮기는지는 4절 끝에서 기울기로 직접 봐요. 켜면 어떻게 되는지는 6절에서 봐요.
#
# 영어와 한국어 토큰이 어휘 사전 하나(토큰 92개)를 함께 써요. 손실은 **크로스 엔트로피**예요. 모델이 정답 토큰에 준 확률을 p라고 하면 손실은 −ln p라서, 정답에 확률을 많이 줄수록 작아져요. 92개 모두에 똑같이 1/92를 주는 모델이라면 손실은 ln 92 ≈ 4.5예요. 학습 전 모델은 매개변수가 무작위라 로짓(소프트맥스에 들어가는 점수)이 표준편차 1쯤으로 흩어져 있어요. 그래서 손실이 그보다 0.6쯤 높게 나와요(아래 5.15).

# %% [markdown] lang="en"
# ## 2. The model: the architecture of lesson 09's TinyTransformer
#
# One encoder layer, one decoder layer, d_model = 32, one head. Layer norm before each sub-layer (pre-LN), a ReLU feed-forward (ReLU turns negatives into 0 and keeps positives), sinusoidal positions, no biases: the same architecture as the `TinyTransformer` lesson 09 decodes with, so the trained parameters go into a `TinyTransformer`, with zeros for the encoder self-attention that this first model leaves out (below), so that it adds nothing.
#
# One simplification: this first model **has no encoder self-attention** (`encoder_self_attention=False`). Each encoder output vector then holds its own word and position only, so to read a word, cross-attention must look at that word's position. Why training moves the attention weights there, the end of section 4 shows with the gradient itself. Section 6 turns self-attention on.
#
# English and Korean share one vocabulary of 92 tokens. The loss is the cross-entropy, −ln of the probability given to the gold token. A model giving every token 1/92 would score ln 92 ≈ 4.5; the untrained model's logits, spread with a standard deviation of about 1 by its random parameters, add about 0.6 to that (5.15 below).

# %%
vocab = toy_corpus.Vocabulary()
model = translator.Translator(len(vocab), d_model=32, n_heads=1, encoder_self_attention=False,
                              seed=0)
batch = translator.make_batch(corpus.train[:4], vocab)
logits, cache = model.forward(batch)
# ko: 매개변수 수, 원문 (문장, 토큰), 번역 입력 (문장, 토큰), 로짓 (문장, 토큰, 어휘)
# en: parameters, source (sentences, tokens), decoder input (sentences, tokens), logits (…, vocab)
print(model.n_parameters, batch.source.shape, batch.target_in.shape, logits.shape)
print(round(model.loss(batch), 2), round(np.log(len(vocab)), 2))   # ko: 학습 전 손실, ln 92
                                                                   # en: loss before training, ln 92

# %% [markdown] lang="ko" slide="slide"
# ## 3. 기울기를 직접 계산하기
#
# `qkv_helpers.backprop`에는 연산마다 순전파와 역전파가 나란히 있어요. 임베딩, 선형 변환, 레이어 정규화, ReLU, 크로스 엔트로피, 그리고 어텐션이에요. 모델 전체의 기울기는 연산마다 따로 짠 역전파를 **연쇄 법칙**(합성함수의 미분)으로 출력 쪽부터 차례로 이어 붙여 구해요. 어텐션의 순전파는 05강부터 써 온 `qk.scaled_dot_product_attention` 그대로예요. 역전파는 다섯 줄이에요(p는 어텐션 가중치, scale = 1/√d_k).
#
# - d_v = pᵀ·d_out: 밸류의 기울기
# - d_p = d_out·vᵀ: 어텐션 가중치의 기울기
# - d_s = J·d_p: 점수의 기울기. `softmax_backward`가 03강에서 본 소프트맥스의 야코비안 J = diag(p) − p·pᵀ를 행마다 곱해요.
# - d_q = d_s·k·scale
# - d_k = d_sᵀ·q·scale
#
# 이 역전파는 순전파가 남겨 둔 p를 읽어요. FlashAttention-2는 p 대신 출력과 행마다 로그-합-지수만 남기고, 여기서 p를 다시 계산해요(7절).
#
# 아래 코드 맨 윗줄의 `@validate.by(…)`는 입력의 모양을 검사하는 데코레이터(장식자)라 계산과는 상관없어요. scale은 q와 같은 dtype으로 만들어서 float32 입력이 float64로 바뀌지 않게 해요.

# %% [markdown] lang="en"
# ## 3. Every gradient written out
#
# `qkv_helpers.backprop` puts each operation's forward and backward side by side: embedding, linear, layer norm, ReLU, cross-entropy, and attention. Attention's forward is `qk.scaled_dot_product_attention`, the one used since lesson 05. Its backward is five lines (p the attention weights, scale = 1/√d_k):
#
# - d_v = pᵀ·d_out: the values' gradient
# - d_p = d_out·vᵀ: the weights' gradient
# - d_s = J·d_p: the scores' gradient; `softmax_backward` applies the softmax's Jacobian from lesson 03, J = diag(p) − p·pᵀ, to each row
# - d_q = d_s·k·scale
# - d_k = d_sᵀ·q·scale
#
# It reads the p the forward pass kept. FlashAttention-2 keeps only the output and each row's log-sum-exp instead, and recomputes p here (section 7).
#
# The `@validate.by(…)` on the code's first line below is a decorator that checks the inputs' shapes; it takes no part in the computation. scale is made in q's dtype, so a float32 input does not turn into float64.

# %%
print(code_without_docstring(backprop.softmax_backward))

# %% slide="subslide"
print(code_without_docstring(backprop.attention_backward))

# %% [markdown] lang="ko" slide="subslide"
# 이 식들이 맞는지는 **유한 차분**으로 확인해요. 매개변수 하나를 아주 작은 수 ε만큼 올렸을 때와 내렸을 때 손실을 재서, 그 차이를 2ε으로 나누면 그 매개변수에 대한 기울기의 근삿값이 돼요. 반올림 오차가 작도록 float64(배정밀도 실수)로 만든 헤드 2개짜리 모델을 쓰고, 인코더 셀프 어텐션도 켜서 모든 매개변수를 검사해요. **배치**(한 번에 함께 계산하는 문장 묶음) 하나로 재는데, 배치 속 문장은 길이가 서로 달라서 짧은 문장 뒤는 패딩으로 채워져 있어요. 매개변수 배열 18개(임베딩과 가중치 행렬) 하나하나에서 원소 10개씩을 무작위로 골라 검사해요(임베딩은 배치에 나온 토큰의 행에서만 골라요). g는 역전파로 구한 기울기, g_수치는 유한 차분으로 구한 값이에요. 상대 오차는 원소 하나하나로 나눗셈하지 않고, 10개를 벡터 하나로 모아 그 길이(노름)로 한 번에 재요: ‖g − g_수치‖ / (‖g‖ + ‖g_수치‖). 그래서 기울기가 정확히 0인 원소(패딩 토큰 &lt;pad&gt;의 임베딩)가 섞여 있어도 0으로 나누지 않아요. 뽑은 원소 10개의 기울기가 (역전파 값도 수치 값도) 모두 정확히 0이면 아무것도 검사하지 못한 거라서, `gradient_check`는 통과로 치지 않고 오류를 내요.
#
# ε은 얼마로 잡아야 할까요? 오차가 두 군데서 생겨요. ε이 크면 차분이 기울기에서 벗어나요(**절단 오차**, ε²에 비례). ε이 작으면 손실의 맨 끝자리 반올림 오차(float64에서 손실의 1e-16배쯤이나 그보다 조금 더)를 아주 작은 수인 2ε으로 나누게 돼서 크게 부풀어요(**반올림 오차**, 1/ε에 비례). 아래 오른쪽 그림이 이 두 가지를 재요. 로그-로그 그림에서 ε을 오른쪽에서 왼쪽으로 줄여 가면, 오차가 ε²에 맞춰(직선의 경사 2) 줄다가 어느 곳부터는 1/ε에 맞춰(경사 −1) 다시 커져요. 가장 낮은 곳은 ε = 1e-4 근처예요(둘째 줄의 True: 1e-4에서 오차가 1e-5에서보다 작아요). 우리는 그 바로 왼쪽인 ε = 1e-5를 쓰는데, 여기서도 배열 18개 중 가장 큰 오차(왼쪽 그림)가 통과선(1e-6)보다 100배쯤 작아요. ε = 1e-6이면 그 여유가 열 배 남짓으로 줄어요.
#
# 출력 `18 True`는 배열 18개를 모두 검사했고, 그중 가장 큰 상대 오차도 1e-6보다 작다는 뜻이에요. 왼쪽 그림은 배열 하나하나의 오차예요. 원소 몇 개만 골라 본 것이라 증명은 아니지만, 식이 틀리면 오차가 보통 1e-3에서 1 정도로 커서 식과 코드가 맞다고 믿을 수 있어요. 셀은 숫자 대신 1e-6보다 작은지만 출력하고, 값은 그림으로 봐요.
#
# <details><summary><b>더 알아보기</b>: 막대의 길이가 컴퓨터마다 다른 이유</summary>
#
# 막대의 길이는 컴퓨터마다 조금씩 달라요. 계산 라이브러리가 CPU에 맞춰 덧셈 순서를 다르게 잡으면 반올림 오차가 달라지거든요. 그래서 셀은 오차의 숫자를 출력하지 않아요.
# </details>

# %% [markdown] lang="en"
# We check these formulas with **finite differences**: nudge one parameter up and down by a tiny ε, and the change in the loss divided by 2ε approximates its gradient. We use a float64 model with 2 heads and encoder self-attention on, so that every parameter is checked, and one batch of sentences of different lengths (so with padding). Ten random entries of each of the 18 parameter arrays (the embedding and the weight matrices) are checked (for the embedding, among the rows of tokens in the batch). g is the backprop gradient, g_numeric the finite-difference one; the relative error is taken by norm over those ten, ‖g − g_numeric‖ / (‖g‖ + ‖g_numeric‖), so an entry of `<pad>`'s embedding, whose gradient is exactly 0, causes no division by zero. If all ten picked entries have gradient exactly 0, both backprop and numeric, nothing would be checked: `gradient_check` then raises an error instead of reporting a perfect 0.
#
# Which ε? Two errors compete. A large ε makes the difference stray from the gradient (**truncation error**, proportional to ε²); a small one divides the loss's rounding error (about 1e-16 or somewhat more of it in float64) by a tiny 2ε (**rounding error**, proportional to 1/ε). The right-hand picture below measures both. Read it from right to left: as ε shrinks, the error falls as ε² (slope 2 on log axes), bottoms out near ε = 1e-4 (the second line's True: the error is lower at 1e-4 than at 1e-5), then climbs back as 1/ε. We use ε = 1e-5, just past the bottom: there the largest error of the 18 arrays (left figure) is still about 100× below the pass line (1e-6). At ε = 1e-6 that margin would shrink to about ten-fold.
#
# `18 True` means all 18 arrays were checked and even the largest relative error is below 1e-6; the left-hand picture shows each array's error. Only a few entries were sampled, so this is not a proof, but a wrong formula typically gives errors of 1e-3 to 1, so we can trust that formulas and code agree. The cell prints only whether they are below 1e-6, and the picture shows the values.
#
# <details><summary><b>Read more</b>: why the bars differ between computers</summary>
#
# The bars' lengths differ a little between computers: numpy's numerical libraries pick different CPU code (e.g. AVX2 or AVX-512) that adds numbers in a different order, which changes the rounding error. That is why the cell prints no error values.
# </details>

# %% slide="subslide"
model64 = translator.Translator(len(vocab), 32, n_heads=2, seed=1, dtype=np.float64)
batch3 = translator.make_batch(corpus.train[:3], vocab)
grad_errors = translator.gradient_check(model64, batch3, eps=1e-5)   # ko: {배열 이름: 상대 오차}
                                                                     # en: {array name: error}
by_eps = translator.gradient_check_by_eps(model64, batch3)           # ko: {ε: dec.cross.w_q의 오차}
                                                                     # en: {ε: error of dec.cross.w_q}
print(len(grad_errors), max(grad_errors.values()) < 1e-6)   # ko: 검사한 배열 수, 모두 1e-6보다 작은지
                                                            # en: arrays checked; all below 1e-6?
print(by_eps[1e-4] < by_eps[1e-5])        # ko: 오차가 가장 낮은 곳이 1e-5보다 1e-4 쪽인지
                                          # en: is the error lower at 1e-4 than at 1e-5?
fig = qk.plots.plot_gradient_check(grad_errors, by_eps, eps=1e-5)

# %% [markdown] lang="ko" slide="subslide"
# 모델 전체를 검사하면 어딘가 틀렸다는 건 알 수 있지만, 어느 연산인지는 알 수 없어요. 연산 하나의 역전파가 틀리면 그 기울기를 거쳐 가는 기울기가 모두 틀려서, 그 연산보다 입력 쪽에 있는 배열들이 한꺼번에 실패하거든요. 실패한 배열만 봐서는 어느 연산인지 알 수 없어요. 그래서 연산마다 따로도 검사해요. `backprop.check_each_operation`은 연산마다 작은 float64 입력을 만들어, 그 연산의 역전파를 유한 차분과 비교해요. 여러분이 짠 함수를 `layer_norm_backward=내_함수`처럼 연산 이름을 붙여 넘기면 패키지 것 대신 그걸 검사해요. 아래에서는 레이어 정규화의 역전파에서 항 하나(−y·mean(d_y·y))를 일부러 빼 봤어요. 실패하는 연산이 그 하나로 좁혀져요.

# %% [markdown] lang="en"
# A whole-model check tells you that some gradient is off, not which op: one wrong backward spoils every gradient chained through it, so many arrays fail together and the failures do not point at the op. So each op is checked on its own too: `backprop.check_each_operation` gives each op a small float64 input and compares its backward with finite differences. Pass a backward of your own by its name and it is checked in place of the package's. Below, layer norm's backward loses one term (−y·mean(d_y·y)) on purpose: the failing op narrows down to that one.

# %%
print([op for op, e in backprop.check_each_operation().items() if e < 1e-6])   # ko: 통과한 연산
                                                                               # en: ops that pass


def forgot_a_term(d_out, y, inv_std):            # ko: 레이어 정규화의 역전파, −y·mean(d_y·y)를 빠뜨림
                                                 # en: layer norm's backward without −y·mean(d_y·y)
    return (d_out - d_out.mean(axis=-1, keepdims=True)) * inv_std


by_op = backprop.check_each_operation(layer_norm_backward=forgot_a_term)
print({op: round(e, 1) for op, e in by_op.items() if e > 1e-6})     # ko: 실패한 연산과 상대 오차
                                                                    # en: ops that fail, and their error

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 쿼리 하나의 어텐션 역전파
#
# 쿼리 하나 `q` (d,), 키 `k` (n, d), 밸류 `v` (n, m)로 out = softmax(k·q/√d)·v를 계산해요. 출력의 기울기 `d_out` (m,)이 주어질 때, `d_q` (d,), `d_k` (n, d), `d_v` (n, m)을 돌려주는 함수 `my_backward(q, k, v, d_out)`를 만들어 보세요. 위 `attention_backward`의 다섯 줄을 쿼리가 하나뿐인 경우로 바꾸면 돼요. d_v와 d_k가 `np.outer(a, b)`로 바뀌어요. a를 열벡터, b를 행벡터로 놓고 곱한 행렬로, (i, j) 칸이 a_i·b_j예요. 이 곱을 외적(outer product)이라고 부르는데, 3차원 벡터의 벡터곱(a × b, 이것도 흔히 외적이라고 해요)과는 다른 거예요. 돌려주는 순서는 (d_q, d_k, d_v)예요. 검사기는 여러분이 본 적 없는 새 쿼리로 여러분의 답과 유한 차분 값을 비교하고, 패키지의 역전파(`backprop.attention_backward` 같은)를 부르는 답은 받지 않아요.

# %% [markdown] lang="en"
# ## Try it: attention's backward for one query
#
# With one query `q` (d,), keys `k` (n, d) and values `v` (n, m), out = softmax(k·q/√d)·v. Given the output's gradient `d_out` (m,), write `my_backward(q, k, v, d_out)` returning `d_q` (d,), `d_k` (n, d) and `d_v` (n, m). Rewrite the five lines of `attention_backward` above for a single query, yourself: d_v and d_k become outer products, `np.outer(a, b)` (the matrix whose (i, j) entry is a_i·b_j; not the cross product a × b of 3-D vectors). The checker compares your answer with finite differences on queries you have not seen, and refuses an answer that calls the package's backward (`backprop.attention_backward` and the like).

# %% exercise=true
def my_backward(q, k, v, d_out):
    return ...                            # ko: p를 구한 뒤 d_v, d_p, d_s, d_q, d_k 순서로 계산해요
                                          # en: p, then d_v, d_p, d_s, d_q, d_k: (d_q, d_k, d_v)

qk.checks.check_attention_backward(my_backward)

# %% solution=true
def my_backward(q, k, v, d_out):
    scale = 1 / np.sqrt(len(q))
    p = qk.softmax(k @ q * scale)         # (n,)
    d_v = np.outer(p, d_out)              # (n, m)
    d_p = v @ d_out                       # (n,)
    d_s = p * (d_p - p @ d_p)             # ko: 야코비안 적용
                                          # en: the Jacobian applied
    return d_s @ k * scale, np.outer(d_s, q) * scale, d_v

qk.checks.check_attention_backward(my_backward).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 4. 학습시키기
#
# 한 **스텝**은 배치 하나(문장 32개)로 기울기를 구해 매개변수를 한 번 고치는 거예요. 이걸 300번 해요. 한 번에 얼마나 크게 고칠지(보폭)를 **학습률**이라고 해요. 고치는 방법은 **Adam**이에요. 그냥 기울기의 반대 방향으로 학습률만큼 내려가는 대신, 매개변수마다 최근 기울기들의 평균(방향)과 크기의 평균을 기억해 두고, 방향을 크기로 나눠서 움직여요. 그래서 기울기가 작은 매개변수도 큰 매개변수도 한 스텝에 많아야 대략 학습률만큼 움직여요. 최근 기울기들의 방향이 엇갈리면 덜 움직이고요. 학습률은 처음 20스텝 동안 0 가까이에서 0.01까지 천천히 올려요. 이걸 **워밍업**이라고 해요. 처음 몇 스텝은 Adam이 기억한 평균을 아직 믿기 어려워서, 크게 움직이다 망가지지 않게 하려는 거예요. 그 뒤에는 코사인 곡선 모양으로 0까지 부드럽게 내려요(**코사인 감쇠**). 끝으로 갈수록 보폭을 줄여 자리를 잡게 하려는 거예요. 또 기울기가 갑자기 너무 커지지 않도록, 모든 기울기를 한 벡터로 이어 붙인 길이(노름)가 1.0을 넘으면 방향은 그대로 두고 길이만 1.0으로 줄여서 써요(**기울기 클리핑**). 학습이 끝나면 이 두 가지를 그림으로 봐요. Adam의 두 상수 β₁ = 0.9, β₂ = 0.98은 최근 기울기를 얼마나 오래 기억할지 정해요. 이 값은 트랜스포머를 처음 제안한 논문(Vaswani 외, 2017)과 같지만, 학습률 스케줄(스텝마다 학습률을 정하는 규칙)은 그 논문과 달라요.
#
# 10스텝마다 따로 둔 문장 100개로 세 가지를 재요.
# - **완전 일치**: **그리디**로 번역해서, 번역이 정답과 토큰 하나하나까지 똑같은 문장의 비율이에요. 그리디 디코딩은 매 스텝 확률이 가장 높은 토큰 하나를 골라 디코더에 다시 넣고, 한 번 고른 토큰은 되돌아보지 않아요. 여러 후보를 함께 들고 가는 빔 서치와는 달라요.
# - **토큰 정확도**: 디코더 입력으로 모델이 만든 번역 대신 정답 번역을 넣고(**교사 강요**, teacher forcing), 다음 토큰을 맞힌 비율이에요. 토큰 하나하나를 따로 세어요. 마지막 &lt;eos&gt;도 맞혀야 할 토큰에 넣어요. 정렬 일치도는 그 행을 빼요.
# - **정렬 일치도**: 똑같이 교사 강요로 넣고, 크로스 어텐션에서 한국어 토큰을 예측하는 행마다(마지막 &lt;eos&gt; 행은 빼고) 가장 큰 가중치가 정답 영어 단어에 놓였는지 봐요. 그런 행의 비율이 정렬 일치도예요. 헤드가 여럿이면 헤드 평균으로 재요.
#
# 원문 토큰은 &lt;eos&gt;까지 7~9개예요. 그러니 아무 데나 보는 행도 여덟 번에 한 번쯤은 정답 단어를 맞혀요. 이 우연 수준을 아래 셀에서 정확히 계산해요.
#
# 학습 시간은 컴퓨터마다 달라요(CPU 한 코어로 몇 초).

# %% [markdown] lang="en"
# ## 4. Train it
#
# A **step** computes the gradient on one batch (32 sentences) and changes the parameters once; we take 300. How far a step moves is the **learning rate**. The optimiser is **Adam**: instead of stepping down the gradient by the learning rate times the gradient, it keeps, per parameter, a running mean of recent gradients (the direction) and of their squares (the size), and steps by the one divided by the square root of the other, so each parameter moves by at most about the learning rate per step (less when its recent gradients disagree), whether its gradient is tiny or large. The learning rate rises from near 0 to 0.01 over the first 20 steps (**warm-up**: early on, Adam's running means hold only a few steps and large moves could wreck the model), then follows a cosine down to 0 (**cosine decay**: smaller and smaller steps settle the model). And so that one bad batch cannot throw it far, all gradients together, as one long vector, are shortened to length (norm) 1.0 whenever they are longer, keeping their direction (**gradient clipping**). After training we look at both in a picture. (Adam's constants β₁ = 0.9 and β₂ = 0.98, how long it remembers, are those of Vaswani et al. 2017; the learning-rate schedule is not theirs.) Every 10 steps, 100 held-out sentences measure three things:
# - the **exact match**: translated **greedily**, the fraction of sentences right token for token. Greedy decoding takes the single most likely token at each step, feeds it back, and never revisits it (beam search, by contrast, carries several candidates along);
# - the **token accuracy**: with the gold translation fed to the decoder (teacher forcing), the fraction of next tokens predicted right, each token counted on its own, the final &lt;eos&gt; included (the alignment agreement leaves that row out);
# - the **alignment agreement**: teacher-forced too; for each cross-attention row that predicts a Korean token (not the final &lt;eos&gt; row), is the largest weight on the gold English word? With several heads we take the heads' average.
#
# A source has 7 to 9 tokens with &lt;eos&gt;; the cell below computes how often a row looking at a random token would hit the gold word.
#
# The training time depends on the computer (a few seconds on one CPU core).

# %% slide="subslide" ignore_output=true
bar = qk.widgets.training_progress(300)
display(bar)
# en: no encoder self-attention, 1 head
run = translator.train(steps=300, seed=0, callback=bar.update)     # ko: 인코더 셀프 어텐션 없음, 헤드 1개
print(round(run.seconds, 1))              # ko: 걸린 시간(초)
                                          # en: seconds taken

# %% lang="ko" slide="subslide"
formed = next(r["step"] for r in run.history if r["alignment"] >= 0.8)   # 그림의 회색 점선
print(round(translator.chance_agreement(corpus.heldout[:100]), 3))   # 정렬 일치도의 우연 수준
print("스텝   손실   완전 일치  토큰 정확도  토큰 정확도(<eos> 빼고)  정렬 일치도")
for r in run.history[:13]:
    if r["step"] % 30 == 0 or r["step"] == formed:
        print(f"{r['step']:4d}  {r['loss']:.3f}    {r['exact_match']:.2f}       "
              f"{r['token_accuracy']:.2f}                {r['token_accuracy_words']:.2f}"
              f"               {r['alignment']:.2f}")

# %% lang="en"
formed = next(r["step"] for r in run.history if r["alignment"] >= 0.8)   # the grey dotted line
print(round(translator.chance_agreement(corpus.heldout[:100]), 3))   # the agreement's chance level
print("step   loss  exact match  token acc.  (no <eos> rows)  alignment")
for r in run.history[:13]:
    if r["step"] % 30 == 0 or r["step"] == formed:
        print(f"{r['step']:4d}  {r['loss']:.3f}     {r['exact_match']:.2f}        "
              f"{r['token_accuracy']:.2f}          {r['token_accuracy_words']:.2f}         "
              f"{r['alignment']:.2f}")

# %% slide="subslide"
fig = qk.plots.plot_training_curves(run.history)

# %% [markdown] lang="ko" slide="subslide"
# 회색 세로 점선이 정렬 일치도가 처음 0.8에 닿은 스텝(위 표에서 그 스텝의 줄)이에요. 표의 손실은 직전 10스텝 동안 학습 배치에서 잰 손실의 평균이에요(스텝 0만은 아직 학습 전이라, 따로 둔 문장에서 잰 손실이에요). **토큰 정확도가 정렬 일치도보다 먼저 올라가요**(스텝 30에서 0.39와 0.20, 거의 두 배예요). 그 차이의 대부분은 마지막 &lt;eos&gt; 행이에요. 문장이 끝나는 자리는 바로 앞 토큰이 동사(…었다)인지만 보면 알 수 있어서 원문을 보지 않고도 맞히기 쉬운데, 정렬 일치도는 그 행을 세지 않거든요. 같은 행끼리 비교하면(표의 "토큰 정확도(&lt;eos&gt; 빼고)" 열) 스텝 30에서 0.28과 0.20이에요. 그래도 토큰이 앞서요. 한 행의 토큰 예측은 그 행의 어텐션이 정답 단어를 보기 전에도, 끝내 보지 않아도 맞을 수 있어요. 디코더가 앞서 나온 번역 토큰 같은 다른 단서로 맞히기도 하거든요. 그러니 이 학습에서 "정렬이 먼저 생긴다"고 말할 수는 없어요. 완전 일치는 둘보다 한참 뒤처지는데, 문장 하나가 맞으려면 그 문장의 토큰(&lt;eos&gt;까지 5~7개)이 모두 맞아야 하기 때문이에요. 처음 정렬 일치도(0.22)는 우연 수준(0.116)의 두 배쯤이고, 20스텝 무렵에는 우연 수준보다도 낮아졌다가 올라가요.
#
# <details><summary><b>더 알아보기</b>: 다른 시드와 학습률에서는</summary>
#
# 이 결과는 시드(`seed`, 난수의 시작값)에 따라 조금씩 달라요. 시드는 말뭉치와 따로 둘 조합도 정하니, 시드마다 자기만의 따로 둔 문장으로 평가해요. 시드 0~4로 학습하면 모두 완전 일치 100%에 닿지만, 95%를 넘는 스텝과 마지막 정렬 일치도는 시드마다 달라요(`benchmarks/bench_translator.py`가 시드마다 재요). 학습률을 두 배(0.02)로 올리면 시드 2는 완전 일치 91%(평가에 쓰는 100문장)에서 멈춰요. 따로 둔 문장 200개 중 104개에서 후치사 행이 전치사가 아니라 &lt;eos&gt;를 보고, 장소만 보고 후치사를 짐작하거든요. 학습률 0.02에서 100%에 못 미치는 시드가 시드 2만은 아니에요. 시드 3은 99%에서 멈추고, 시드 1은 평가에 쓰는 100문장은 다 맞히지만 200문장 전부로 재면 99.5%예요. 이 수업은 시드 0으로 고정하고 float64로 학습해서, 우리가 확인한 컴퓨터에서는 모두 같은 숫자가 나와요(왜 float64인지는 교사용 안내서에 적어 두었어요). 08강과 09강이 쓰는 저장된 번역기(`make train`)도 이 학습으로 만든 거예요.
# </details>
#
# 학습을 마친 모델을 따로 둔 문장 200개 전부로 평가해 봐요.

# %% [markdown] lang="en"
# The grey vertical dotted line is the step where the alignment agreement first reaches 0.8 (its row is in the table). The loss column is the training loss, averaged over the batches of the last 10 steps (at step 0, before any step, it is the loss on the held-out sentences). **The token accuracy rises before the alignment** (0.39 against 0.20 at step 30, nearly double). Most of that lead is the final &lt;eos&gt; row: where a sentence ends, the decoder can tell from whether it has produced the verb yet, without reading the source, and the alignment leaves that row out. On the same rows (the table's "no &lt;eos&gt; rows" column) it is 0.28 against 0.20 at step 30: still ahead. A token can be right before its row peaks on the gold word, or without it ever doing so, from other cues such as the translation so far. So this run does not show the alignment forming first. The exact match lags both, because a sentence is right only once all its tokens (5–7 with &lt;eos&gt;) are. The untrained model's agreement (0.22) is about twice chance (0.116), and around step 20 it dips below chance before it climbs.
#
# <details><summary><b>Read more</b>: other seeds and learning rates</summary>
#
# The result depends a little on the seed (the random numbers' starting point; it also picks the corpus and its held-out combinations, so each seed is tested on its own held-out sentences). Seeds 0 to 4 all reach 100% exact match, at different steps and with different final alignment agreements (`benchmarks/bench_translator.py` measures each seed). With twice the learning rate (0.02), seed 2 stops at 91% exact match (on the 100 held-out sentences it is evaluated on): in 104 of the 200 held-out sentences the postposition's row looks at &lt;eos&gt; instead of the preposition, and guesses the postposition from the place. At 0.02 it is not the only seed short of 100%: seed 3 stops at 99%, and seed 1 gets its 100 evaluation sentences right but 99.5% of all 200. The lesson pins seed 0, and trains in float64 (double precision). Training amplifies small differences step by step: in float32, a CPU or BLAS (the library doing the matrix products) that merely sums in another order (a rounding difference near 1e-7) changes the parameters in their 2nd digit after 300 steps, and with them the table above and the alignments below. In float64 the same difference starts near 1e-16 and stays near 1e-12, so the training's printed digits and pictures are the same on every computer we checked (several of OpenBLAS's x86 CPU kernels; training always runs the matrix library on one thread, so the thread count does not enter). Only the printed digits are: the parameters are not equal to the last bit, and the time taken differs from computer to computer. The saved translator lessons 08 and 09 use (`make train`) is this same run.
# </details>
#
# Now measure the final model on all 200 held-out sentences.

# %% slide="subslide"
heldout = translator.make_batch(corpus.heldout, vocab)
weights = run.model.cross_attention(heldout)              # ko: (문장, 헤드, 번역 토큰, 원문 토큰)
                                                          # en: (sentences, heads, target, source)
print(weights.shape, translator.exact_match(run.model, corpus.heldout, vocab),
      round(translator.alignment_agreement(weights, corpus.heldout), 3))
# ko: 한국어 토큰의 역할별 (정렬 일치도, 행 수)
# en: by the Korean token's role: (alignment agreement, rows)
print({qk.lang.t("l14_role_" + role): (round(a, 3), rows) for role, (a, rows)
       in translator.alignment_by_role(weights, corpus.heldout).items()})

# %% [markdown] lang="ko" slide="subslide"
# 학습률 스케줄과 기울기 클리핑을 그림으로 봐요. 왼쪽은 스텝별 학습률이에요(워밍업 뒤 코사인 감쇠). 오른쪽은 10스텝마다 그동안 가장 컸던 기울기 노름(클리핑하기 전)이고, 주황 점선 1.0을 넘은 스텝에서는 클리핑이 기울기를 1.0 길이로 줄였어요. 아래 셀은 그런 스텝이 한 번이라도 있었던 10스텝 구간의 끝 스텝을 출력해요(학습 전인 스텝 0은 빼요). 손실이 작아진 뒤에는 기울기도 훨씬 짧아져서 클리핑할 일이 없어요.

# %% [markdown] lang="en"
# The learning-rate schedule and the clipping, in a picture. Left: the learning rate at each step (warm-up, then the cosine). Right: for each 10 steps, the longest gradient norm before clipping; where it is above the orange 1.0 line, clipping shortened that step's gradient to length 1.0. The cell prints the steps that end a 10-step window with at least one clipped step (not step 0, which is before training). Once the loss is small the gradients are far shorter, and nothing is clipped.

# %%
print([r["step"] for r in run.history if r["step"] > 0 and r["grad_norm"] > 1.0])  # ko: 클리핑이 있었던 구간
                                                                                   # en: clipped windows
fig = qk.plots.plot_optimiser(run.history)

# %% [markdown] lang="ko" slide="slide"
# ### 왜 어텐션 가중치가 정답 단어로 옮겨 갈까요: 기울기가 점수를 미는 방향
#
# 역전파는 어텐션 점수 s(소프트맥스에 들어가기 전)에도 기울기 d_s를 줘요. 3절 `attention_backward`의 가운데 줄이에요. −d_s는 한 스텝이 점수를 어느 쪽으로 밀고 싶은지예요. −d_s가 양수인 키는 점수가 올라가고(그 키를 더 읽으면 손실이 줄어요), 음수인 키는 점수가 내려가요. 한 행의 합은 0이에요. 어텐션 가중치의 합이 1이라서, 한 키를 올리면 나머지는 내려가야 하거든요. 점수는 매개변수가 아니라 직접 바꿀 수 없어요. 대신 W_Q와 W_K가 점수를 이 방향으로 움직이게 바뀌어요. `translator.score_push`가 이 값을 계산하고, 학습은 평가할 때마다 따로 둔 첫 문장(`held`)의 값을 `run.pushes`에 남겨 둬요.
#
# 키 j를 미는 힘은 p_j·(d̄ − d_p_j)예요. −d_p_j = −d_out·v_j는 밸류 v_j를 조금 더 읽을 때 손실이 얼마나 줄어드는지예요. d̄ = Σ_k p_k·d_p_k는 그 행의 평균이에요. 그 키를 읽는 게 행이 지금 섞어 읽는 것보다 나으면 점수가 올라가요. 미는 힘에는 그 키의 지금 어텐션 가중치 p_j가 곱해져서, 행이 거의 보지 않는 키는 거의 밀리지 않아요. 그러니 그 행이 예측해야 할 단어를 담은 밸류, 곧 정답 단어의 키가 가장 세게 밀려 올라가요. 다만 위쪽 레이어가 그 밸류를 한국어 단어로 옮기는 법을 조금이라도 배운 뒤에야 그래요. 아래 셀은 "숨었다"의 행에서 스텝마다 가장 세게 밀려 올라가는 토큰이 "hid"인지, 가중치가 가장 큰 토큰이 "hid"인지, "hid"에 준 가중치를 출력해요.

# %% [markdown] lang="en"
# ### Why do the attention weights move to the gold word? The gradient's push on the scores
#
# The backward also gives the attention scores s (before the softmax) a gradient d_s: the middle line of section 3's `attention_backward`. −d_s is where one step wants to push the scores: up where its entry is positive (reading that key more lowers the loss), down where it is negative. Each row sums to 0: the attention weights sum to 1, so raising one key lowers the others. The scores are not parameters and cannot be changed directly; W_Q and W_K change so as to move them this way. `translator.score_push` computes it, and training keeps it for the first held-out sentence (`held`) at each evaluation, in `run.pushes`.
#
# The push on key j is p_j·(d̄ − d_p_j), where d_p_j = d_out·v_j is how much the loss would rise if the row read more of v_j, and d̄ = Σ_k p_k·d_p_k is the row's average. A key is pushed up when reading it beats the row's current mix. The push is scaled by the key's current weight, so a key the row ignores gets almost none. So the key pushed up hardest is the one whose value holds the word the row must predict, the gold word, once the layers above have begun to turn that value into the Korean word. The cell prints, for the row of "숨었다" at a few steps: whether the token pushed up hardest is "hid", whether the largest weight is on "hid", and the weight on "hid".

# %% slide="subslide"
verb_row, hid = len(held.korean) - 1, held.alignment[-1]   # ko: "숨었다"의 행, "hid"의 열
                                                           # en: the row of 숨었다, column of hid
for i in (0, 2, 3, 4):                    # ko: 스텝 0, 20, 30, 40의 평가
                                          # en: the evaluations at steps 0, 20, 30 and 40
    push, w = run.pushes[i][0, verb_row], run.snapshots[i][0, verb_row]   # ko: 헤드 0의 행
                                                                          # en: head 0's row
    # ko: 스텝, 가장 세게 미는 곳이 "hid"인지, 가중치가 가장 큰 곳이 "hid"인지, "hid"의 가중치,
    # ko: 가장 큰 미는 힘(그림처럼 1로 맞추지 않은 값)
    # en: step; is the hardest push on "hid"? is the largest weight on "hid"? the weight on "hid";
    # en: the largest push, unscaled (the picture scales each step to 1)
    print(run.history[i]["step"], push.argmax() == hid, w.argmax() == hid,
          round(float(w[hid]), 2), f"{push.max():.1e}")
fig = qk.plots.plot_score_push(run, [0, 20, 30, 40])

# %% [markdown] lang="ko" slide="subslide"
# "숨었다"의 행은 스텝 0부터 "hid"를 가장 세게 밀어 올려요(둘째 열이 모두 True). 그런데 가중치가 가장 큰 곳은 "hid"가 아니에요. 처음에는 "duck"이고, 스텝 20~30에는 오히려 &lt;eos&gt;로 쏠려요(그림 아래쪽). 그동안에도 미는 힘은 계속 "hid"를 올리고 &lt;eos&gt;를 내려요(그림 위쪽). 스텝 40이면 가중치가 "hid"로 옮겨 가요. 가중치가 자리를 잡으면 미는 힘은 줄어들어요(마지막 열에서 스텝 30의 3분의 1쯤). 더 읽어서 줄일 손실이 덜 남았고, 가중치가 1에 가까우면 점수가 바뀌어도 가중치가 거의 움직이지 않거든요. d̄ − d_p_j = Σ_{k≠j} p_k·(d_p_k − d_p_j)는 다른 키들에 남은 가중치 1 − p_j에 비례해 작아져요. 그림은 스텝마다 가장 큰 값을 1로 맞춰 그려서, 이 줄어듦은 그림이 아니라 출력된 마지막 열에서 보여요.
#
# 오른쪽 곡선은 모든 행으로 본 거예요. **미는 힘 일치도**는 평가 직전 10스텝의 학습 배치에서 평균 낸 값으로, 가장 세게 밀려 올라가는 키가 정답 단어인 행의 비율이에요. 정렬 일치도와 같은 행을 세지만, 정렬 일치도는 따로 둔 문장에서 재요. 스텝 0에서는 우연 수준이에요. 위쪽 레이어가 아직 아무 밸류도 쓸 줄 몰라서, 어느 키를 더 읽어도 나을 게 없으니까요. 그러니 위 셀에서 스텝 0의 "숨었다" 행이 True였던 건 우연이에요. 그 뒤로 미는 힘이 정렬보다 먼저 정답 단어를 가리키고, 가중치가 그 뒤를 따라가요. 가중치가 자리를 잡은 행에서는 미는 힘이 사라져 가장 센 곳이 아무 데나 되니, 미는 힘 일치도는 정렬 일치도처럼 1까지 올라가지 않고 중간에서 멈춰요.

# %% [markdown] lang="en"
# The row of "숨었다" pushes "hid" up hardest from step 0 on (the second column is True throughout), yet its largest weight is elsewhere: first on "duck", and at steps 20 to 30 it even drifts to &lt;eos&gt; (bottom row of the picture). All the while the push keeps raising "hid" and lowering &lt;eos&gt; (top row of the picture). By step 40 the weight has moved to "hid". Once it is there the push shrinks (the last column: about a third of step 30's): there is less loss left to gain by reading more, and a weight near 1 barely responds to its score: d̄ − d_p_j = Σ_{k≠j} p_k·(d_p_k − d_p_j) shrinks with 1 − p_j, the weight the other keys still hold. The picture scales each step to its own largest push, so the shrinking shows in the printed column, not in the picture.
#
# The curves on the right count all rows. The **push agreement** is the fraction of rows, averaged over the training batches of the 10 steps before each evaluation (the alignment is measured on held-out sentences), whose hardest push up is on the gold word (the same rows as the alignment agreement). At step 0 it is at chance: the layers above cannot use any value yet, so no key is better to read than another. So the True of the "숨었다" row at step 0 in the cell above was luck. Then the push points at the gold words before the weights do, and the weights follow. In a row whose weight has settled, the push fades and its largest entry lands anywhere, so the push agreement stops halfway instead of rising to 1 like the alignment.

# %% [markdown] lang="ko" slide="slide"
# ## 5. 위젯: 어텐션이 정렬이 되는 순간
#
# 슬라이더로 학습 스텝을 골라요. 왼쪽은 따로 둔 문장 하나의 크로스 어텐션이에요. 각 행에는 그 행이 예측하는 한국어 토큰이 적혀 있고, 각 열은 영어 토큰이에요. 주황색 테두리가 정답 정렬이에요. 오른쪽 그래프의 검은 세로선이 지금 고른 스텝이에요.
#
# **해 볼 것**
# - 스텝 0에서 시작하세요. 가중치가 어디에 있나요?
# - 천천히 올려 보세요. 어느 행이 먼저 정답 칸을 찾나요? 동사 행(&lt;eos&gt; 바로 위, 마지막 한국어 토큰)은 언제 찾나요?
#
# **눈여겨볼 것**
# - 동사 행은 원문의 앞쪽 단어(주어 바로 다음 단어)를 봐요. 어순이 바뀐 만큼 어텐션이 원문을 거슬러 올라가 동사를 찾아요.
# - 후치사 행(위에, 안에 …)은 장소 명사 **다음**에 오지만, 원문에서는 명사보다 **앞**의 전치사를 봐요.

# %% [markdown] lang="en"
# ## 5. Widget: the moment attention becomes alignment
#
# Pick a training step with the slider. On the left, one held-out sentence's cross-attention: rows are labelled with the Korean token the row predicts, columns are the English tokens, and the orange outlines are the gold alignment. The black line on the curves is the current step.
#
# **Try this**
# - Start at step 0. Where are the weights?
# - Move up slowly. Which rows find their gold cell first? When does the verb's row (the last Korean token) find it?
#
# **Notice**
# - The verb's row looks at a word near the front of the source (the word right after the subject). Attention reaches back as far as the word order moved.
# - The postposition's row (위에, 안에, …) comes **after** the place noun, yet it looks at the preposition that comes **before** the noun in the source.

# %% slide="subslide"
qk.widgets.attention_learning_explorer(run)

# %% [markdown] lang="ko" slide="subslide"
# 스텝 300에서도 "오리가"의 행은 "duck"이 아니라 맨 앞 "the"와 "bench"를 봐요. 그래도 번역은 맞아요. 맨 앞 "the"는 어느 문장에서나 똑같은 벡터라 아무 정보도 없는데, 이 모델은 주어 행이 아무것도 가져오지 못하면 "오리가"라고 답하도록 배웠어요. 일종의 기본값이에요. 따로 둔 문장에서 동사가 "stood"(섰다)인 문장 36개 중 35개는 그 행이 &lt;eos&gt;를 봐요(위젯의 문장에는 없어요). 200문장에서 정답 단어를 보지 않는 행은 54행이고, 그중 53행이 이 두 기본값이에요. 정렬 일치도가 1이 아니라 0.95에서 멈추는 건 이 때문이에요. 위의 역할별 숫자에서도 보여요. 형용사·장소·후치사 행은 모두 정답 단어를 찾지만(1.0, 1.0, 1.0), 주어 행은 91%, 동사 행은 82%만 찾아요. 남은 한 행은 "stood" 문장의 동사 행이 "big"을 본 건데, 200문장 중 번역이 틀린 단 하나(완전 일치 0.995)가 바로 이 문장이에요. 위젯 아래 줄의 숫자는 학습 중에 따로 둔 문장 100개로 잰 것이라, 학습 직후 200개 전부로 잰 값(0.952)과 소수 둘째 자리가 다를 수 있어요.

# %% [markdown] lang="en"
# At step 300 the row of "오리가" still does not look at "duck", but at the first "the" and "bench", and the translation is right anyway. The first "the" is the same vector in every sentence, so it tells nothing; this model learned to answer "오리가" when the subject's row brings back nothing, as a default. In 35 of the 36 held-out sentences whose verb is "stood" (섰다; not in the widget's sentence), the verb's row looks at &lt;eos&gt;, the same kind of default. These two defaults are 53 of the 54 rows (in 200 sentences) that miss their gold word: they are why the alignment agreement ends at 0.95 and not 1. The by-role line above shows it too: the rows of adjectives, places and postpositions all find their gold word (1.0, 1.0, 1.0), the subjects' rows 91% and the verbs' rows only 82%. The one row left is a "stood" sentence's verb row that looks at "big": that sentence is the only one of the 200 translated wrong (exact match 0.995). The widget's caption gives the run's own evaluation during training, on the first 100 held-out sentences, so it may differ in the second decimal from the cell after training, which measured all 200 (0.952).

# %% [markdown] lang="ko" slide="slide"
# ## 6. 어텐션은 정렬이 아니에요
#
# 이제 나머지 조건(시드, 스텝 수, 학습률)은 그대로 두고 설정을 하나씩 바꿔 다시 학습해요(하나에 몇 초). 헤드만 2개로 늘린 모델, 인코더 셀프 어텐션만 켠 모델, 둘 다 바꾼 모델이에요. 인코더 셀프 어텐션이 있으면 인코더가 단어의 내용을 한국어에 대응하는 단어가 없는 토큰("the"나 &lt;eos&gt;)으로 옮겨 담을 수 있어요. 그러면 크로스 어텐션은 단어를 그 단어의 자리가 아닌 곳에서 읽어 올 수도 있어요.
#
# `where_attention_lands`는 한국어 토큰의 행이 가장 많이 보는 곳이 네 가지 중 어디인지 세어서 비율로 알려 줘요: 정답 단어, "the", &lt;eos&gt;, 다른 단어.

# %% [markdown] lang="en"
# ## 6. Attention is not alignment
#
# Now change one setting at a time and train again with the same settings otherwise (a few seconds each): 2 heads only, encoder self-attention only, then both. With encoder self-attention, the encoder can copy a word's content into another token, one that carries no word of its own ("the" or &lt;eos&gt;), and cross-attention can then read the word somewhere other than its own position.
#
# `where_attention_lands` sorts where each Korean token's row looks most into four kinds: its gold word, "the", &lt;eos&gt;, another word.

# %% slide="subslide" ignore_output=true
bar = qk.widgets.training_progress(300, runs=3)
display(bar)
runs = {(1, False): run,                  # ko: (헤드 수, 인코더 셀프 어텐션)
                                          # en: (heads, encoder self-attention)
        (2, False): translator.train(n_heads=2, eval_every=300, callback=bar.update),
        (1, True): translator.train(encoder_self_attention=True, eval_every=300,
                                    callback=bar.update),
        (2, True): translator.train(encoder_self_attention=True, n_heads=2, eval_every=300,
                                    callback=bar.update)}
run_sa = runs[2, True]

# %%
for (heads, self_attention), r in runs.items():   # ko: 완전 일치, 어텐션이 향한 곳, 헤드별 정렬 일치도
                                                  # en: exact match, where attention lands, per head
    w = r.model.cross_attention(heldout)
    lands = translator.where_attention_lands(w, corpus.heldout)
    per_head = [round(translator.alignment_agreement(w, corpus.heldout, h), 2)
                for h in range(heads)]
    print(heads, self_attention, translator.exact_match(r.model, corpus.heldout, vocab),
          translator.describe_landing(lands), per_head)

# %% [markdown] lang="ko" slide="subslide"
# 헤드만 늘리면 헤드 평균의 정렬은 거의 그대로예요(0.95에서 0.96). 정렬을 흐트러뜨리는 건 **인코더 셀프 어텐션**이에요. 셀프 어텐션을 켠 두 모델은 한국어 토큰의 23%와 39%가 정답 단어가 아닌 곳, 주로 &lt;eos&gt;와 "the"를 봐요. 헤드 평균 때문에 생긴 일도 아니에요. 평균을 낼 것이 없는 헤드 1개짜리 모델에서도 정답 단어를 찾는 행은 77%뿐이고, 헤드 2개짜리에서는 평균(0.61)이 두 헤드 각각(0.6과 0.58)보다 낮지 않아요.
#
# 반대로, 헤드별 숫자만 보고 정렬이 흐트러졌다고 하면 안 돼요. 셀프 어텐션이 없는 헤드 2개짜리 모델은 헤드 하나씩 보면 0.79와 0.77로 낮지만, 둘이 일을 나눠 맡아서 평균은 0.96이에요.
#
# 셀프 어텐션을 켠 두 모델도 번역은 거의 다 맞아요(완전 일치 100%와 99%). 앞에서 본 문장(`held`)을 헤드별로 그린 아래 그림을 보세요. "숨었다"의 행이 "hid"를 보지 않아요. 헤드 0은 두 "the"를, 헤드 1은 &lt;eos&gt;를 봐요. 그 아래 셀은 인코더 셀프 어텐션에서 원문 토큰의 행마다 "hid"에 준 가중치를 출력해요. 인코더 헤드 0에서 두 "the"의 행이 "hid"에 0.8쯤을 줘요. 인코더가 "hid"의 내용을 "the" 자리에 옮겨 담았으니, 크로스 어텐션 헤드 0은 "the"에서 동사를 읽을 수 있어요. 그런데 크로스 어텐션 헤드 1이 동사 행에서 가장 많이 보는 &lt;eos&gt;는 "hid"에서 거의 아무것도 가져오지 않았어요(인코더 헤드 0에서 0.08, 헤드 1에서 0). 가중치가 가장 큰 곳에 꼭 그 단어의 정보가 있는 건 아니에요.
#
# 그러니 어텐션 가중치는 **모델이 어느 벡터를 읽었는지**를 알려 줄 뿐, 그 벡터에 **어느 단어의 정보가 들어 있는지**는 알려 주지 않아요. 레이어를 지나며 토큰의 정보가 섞이기(token mixing) 때문이에요(Brunner 외 2020, Abnar와 Zuidema 2020). 11강에서 본 것과 닮은 이야기예요. 어텐션 가중치, 각 토큰이 실제로 보탠 몫, 그리고 설명은 서로 다른 거예요.

# %% [markdown] lang="en"
# More heads alone leave the heads' average aligned (0.96 against 0.95); what scatters it is **encoder self-attention**. With it, 23% and 39% of the Korean tokens look somewhere other than their gold word, mostly &lt;eos&gt; and "the". This is not an artefact of averaging the heads: with one head, where nothing is averaged, only 77% of the rows find their gold word, and with two heads the average (0.61) is no worse than either head (0.6 and 0.58).
#
# Conversely, per-head numbers alone do not show a scattered alignment: without self-attention the two heads share the work, each scoring only 0.79 and 0.77, yet their average is 0.96.
#
# Yet the two models with self-attention translate nearly everything right (100% and 99% exact match). Look at the per-head maps of the sentence from before (`held`): the row of "숨었다" does not look at "hid": head 0 looks at the two "the"s, head 1 at &lt;eos&gt;. The cell after them prints, for each source token's row of the encoder's self-attention, its weight on "hid": in encoder head 0, both "the" rows give "hid" about 0.8. The encoder copied "hid"'s content into the "the"s, so cross-attention head 0 can read the verb there. But the &lt;eos&gt; that cross-attention head 1 looks at most took almost nothing from "hid" (0.08 in encoder head 0, 0 in encoder head 1). The largest weight is not always where the word's information is.
#
# So attention weights tell **which vector the model read**, not **which word's information that vector holds**, because layers mix the tokens' information (token mixing: Brunner et al. 2020; Abnar & Zuidema 2020). It is a cousin of lesson 11's point that attention weights, what each token contributes, and an explanation are three different things.

# %% slide="subslide"
# ko: (헤드, 번역 토큰, 원문 토큰)
# en: (heads, target, source)
w0 = run_sa.model.cross_attention(translator.make_batch([held], vocab))[0]
fig = qk.plots.plot_alignment_maps(w0, [*held.korean, "<eos>"], [*held.english, "<eos>"],
                                   held.alignment)

# %%
_, cache_sa = run_sa.model.forward(translator.make_batch([held], vocab))
encoder_self = cache_sa["enc.self"].weights[0]       # ko: (헤드, 원문 토큰, 원문 토큰)
                                                # en: (heads, source, source)
verb = held.alignment[-1]                        # ko: 원문에서 동사의 위치
                                                 # en: the verb's position in the source
print("→", held.english[verb], [*held.english, "<eos>"])
for h in range(len(encoder_self)):               # ko: 헤드마다: 원문 토큰의 행이 동사에 준 가중치
                                                 # en: per head: each source row's weight on the verb
    print(h, encoder_self[h, :, verb].round(2))

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 새 문장의 후치사는 어디를 볼까요
#
# 헤드 2개에 인코더 셀프 어텐션을 켠 모델(`run_sa.model`)에 새 문장 "the white rabbit hid behind the small bench"(하얀 토끼가 작은 벤치 뒤에 숨었다)를 넣어요. 이 문장의 어텐션 그림은 아직 한 번도 보지 않았어요. 크로스 어텐션 **헤드 0**에서 후치사 "뒤에"를 예측하는 행은 원문 토큰 중 무엇에 가장 큰 가중치를 둘까요? 정렬대로라면 "behind"겠지만, 이 모델은 인코더 셀프 어텐션이 있어요. 6절에서 본 것을 떠올려 먼저 예측해 보세요. 맞히면 검사기가 그 토큰이 인코더에서 "behind"의 내용을 얼마나 받았는지도 알려 줘요. `my_word`에 원문 토큰 하나(영어 단어나 "&lt;eos&gt;")를 따옴표로 감싸 적은 뒤 검사기로 확인해 보세요. 틀리면 검사기는 답을 알려 주지 않아요.

# %% [markdown] lang="en"
# ## Try it: where does a new sentence's postposition look?
#
# Give the 2-head model with encoder self-attention (`run_sa.model`) a new sentence, "the white rabbit hid behind the small bench" (하얀 토끼가 작은 벤치 뒤에 숨었다), whose attention you have not seen. In cross-attention **head 0**, the row that predicts the postposition "뒤에": which source token gets its largest weight? By the alignment it would be "behind", but this model has encoder self-attention: recall what you saw in section 6 and predict first. A right answer is also told how much of "behind" that token took in the encoder. Write one source token (an English word or "&lt;eos&gt;") in quotes in `my_word`, then check. A wrong guess is not told the answer.

# %% exercise=true
new_pair = toy_corpus.build_sentence("rabbit", "hid", "behind", "bench", "white", "small")
my_word = ...                             # ko: 원문 토큰 하나, 예: "bench"
                                          # en: one source token, e.g. "bench"
qk.checks.check_row_attention(my_word, run_sa.model, new_pair, row="뒤에", head=0)

# %% solution=true
# ko: "behind"가 아니에요. 헤드 0의 "뒤에" 행은 held에서처럼 <eos>를 봐요
# en: not "behind": as in held, head 0's row of "뒤에" looks at <eos>
my_word = "<eos>"
qk.checks.check_row_attention(my_word, run_sa.model, new_pair, row="뒤에", head=0).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 7. 역전파는 무엇을 보관해야 하나요
#
# 3절의 `attention_backward`에는 순전파에서 만든 어텐션 가중치 P가 필요해요. 그래서 일반 역전파를 쓰는 학습은 헤드마다, 레이어마다 (n, n) 크기의 P를 역전파 때까지 메모리에 남겨 둬요. 13강에서 본 FlashAttention은 순전파에서도 P를 통째로 만들지 않았죠. 그럼 역전파는요? 소프트맥스는 p = exp(s) / Σ exp(s)이니, 분모를 로그로 적은 L = log Σ exp(s)만 있으면 p = exp(s − L)로 언제든 다시 구할 수 있어요. 이 L을 **로그-합-지수**(log-sum-exp)라고 불러요. FlashAttention-2는 출력과 함께 행마다 이 L을 하나씩, 모두 n개만 남겨 두고, 역전파에서 키 블록마다 P = exp(s − L)을 **다시 계산**해요. 기울기는 같아요. 남겨 둔 출력 O는 야코비안의 p·d_p 항인 D = rowsum(d_out ⊙ O)(⊙는 원소끼리 곱하기, rowsum은 행마다 더하기)를 P 없이 구하는 데 써요. FlashAttention-1은 L 대신 행마다 최댓값과 합, 두 개를 남겼어요.

# %% [markdown] lang="en"
# ## 7. What does the backward pass have to keep?
#
# Section 3's `attention_backward` reads the weights P made by the forward pass. So plain training keeps an (n, n) P per head and per layer in memory until the backward pass. FlashAttention, as lesson 13 showed, never builds the whole P in the forward pass; what about the backward? Since p = exp(s) / Σ exp(s), the row's **log-sum-exp** L = log Σ exp(s) is enough to rebuild p = exp(s − L). FlashAttention-2 keeps, besides the output (which gives D = rowsum(d_out ⊙ O), the Jacobian's p·d_p term, without P; ⊙ multiplies entry by entry, rowsum adds along each row), only this L per row (n numbers; FlashAttention-1 kept two per row, the max and the sum) and **recomputes** P = exp(s − L) block by block of keys in the backward. The gradients are the same.

# %%
rng = np.random.default_rng(0)
q, k, v, d_out = (rng.standard_normal((512, 64)) for _ in range(4))
out, p, lse = attention_backward.forward_with_logsumexp(q, k, v)
plain = attention_backward.plain_backward(d_out, q, k, v, p)
again = attention_backward.recompute_backward(d_out, q, k, v, out, lse, block_size=64)
gaps = [np.linalg.norm(a - b) / np.linalg.norm(a) for a, b in zip(plain, again)]
# ko: d_q, d_k, d_v의 상대 오차가 모두 1e-14보다 작은지(float64의 반올림 오차뿐인지)
# en: are the relative errors of d_q, d_k, d_v all below 1e-14 (float64 rounding only)?
print(max(gaps) < 1e-14, p.shape, lse.shape)

# %% [markdown] lang="ko" slide="subslide"
# 헤드 하나(d = 64, float32)에서 n을 늘려 가며 세 가지를 봐요. 역전파 때까지 남겨 두는 메모리(표와 그림의 "보관"), 역전파 도중 남겨 둔 것 말고 더 쓴 메모리의 최댓값(파이썬의 `tracemalloc`으로 재요), 역전파의 FLOPs(부동소수점 연산 수)예요. 두 역전파 모두 q, k, v를 읽고, 다시 계산하는 역전파는 출력 O도 읽어요. 일반 학습도 O는 W_O의 역전파에 쓰려고 남겨 두니, "보관"에는 두 방법 모두 q, k, v와 O를 세요. FLOPs는 직접 재지 않고 식으로 계산해요. 일반 역전파는 행렬 곱이 4번(d_v, d_P, d_q, d_k)인데, 다시 계산하는 역전파는 P를 다시 만들려고 q·kᵀ를 한 번 더 하니 FLOPs가 일반 역전파의 5/4배(1.25배)예요(지수 함수 계산은 세지 않아요). 메모리는 n = 1024까지 재고(이 노트북의 메모리를 작게 두려고요), 그 뒤는 같은 것을 세는 식 `attention_backward.kept_bytes`로 어림해요. float32 하나가 4바이트라서 P는 4·n² 바이트예요. MiB는 2²⁰ 바이트예요. 여기서 다시 계산하는 역전파는 키만 블록으로 나누고 쿼리는 n개를 한꺼번에 다뤄서, 최대 메모리가 n에 비례해 늘어요. FlashAttention은 쿼리도 블록으로 나눠요.

# %% [markdown] lang="en"
# One head (d = 64, float32) as n grows: the bytes kept for the backward (both backwards read q, k and v, and the recomputing one reads the output O too; plain training keeps O anyway, as the input of W_O's backward, so both counts include q, k, v and O), the peak memory allocated during the backward on top of what was kept (measured with `tracemalloc`), and the backward's FLOPs. The FLOPs are counted by formula, not measured: the plain backward's 4 matrix products (d_v, d_P, d_q, d_k) plus q·kᵀ once more make the recomputing backward's FLOPs 5/4 of the plain one's (the exponentials are not counted). Memory is measured up to n = 1024 (to keep this notebook's memory small); beyond, `attention_backward.kept_bytes` extrapolates the same quantities by formula. This numpy recompute tiles the keys only and takes all n queries at once, so its peak grows with n; FlashAttention tiles the queries too.

# %% lang="ko" slide="subslide"
costs = attention_backward.measure_backward([128, 256, 512, 1024])
mib = 2**20
# n, 보관(일반), 보관(다시 계산), 최대(일반), 최대(다시 계산) (여기까지 MiB), FLOPs 비율,
# 보관의 비율(일반 ÷ 다시 계산)
print("         보관(MiB)       최대(MiB)      비율")
print("    n    일반 재계산    일반 재계산 FLOPs  보관")
for i, n in enumerate(costs.lengths):
    print(f"{n:5d}  {costs.kept_plain[i] / mib:6.2f}  {costs.kept_recompute[i] / mib:5.2f}  "
          f"{costs.peak_plain[i] / mib:6.2f}  {costs.peak_recompute[i] / mib:5.2f}  "
          f"{costs.flops_recompute[i] / costs.flops_plain[i]:.2f}  "
          f"{costs.kept_plain[i] / costs.kept_recompute[i]:.1f}")
for n in (4096, 32768):                   # 어림: 보관(일반), 보관(다시 계산), 보관의 비율
    kept_p, kept_r = (attention_backward.kept_bytes(n, 64, r) for r in (False, True))
    print(f"{n:5d}  {kept_p / mib:6.0f}  {kept_r / mib:5.2f}", " " * 21, f"{kept_p / kept_r:.1f}")

# %% lang="en"
costs = attention_backward.measure_backward([128, 256, 512, 1024])
mib = 2**20
# n, kept (plain), kept (recompute), peak (plain), peak (recompute) in MiB, FLOPs ratio,
# kept (plain) / kept (recompute)
print("        kept (MiB)      peak (MiB)     ratios")
print("    n   plain recomp   plain recomp FLOPs  kept")
for i, n in enumerate(costs.lengths):
    print(f"{n:5d}  {costs.kept_plain[i] / mib:6.2f}  {costs.kept_recompute[i] / mib:5.2f}  "
          f"{costs.peak_plain[i] / mib:6.2f}  {costs.peak_recompute[i] / mib:5.2f}  "
          f"{costs.flops_recompute[i] / costs.flops_plain[i]:.2f}  "
          f"{costs.kept_plain[i] / costs.kept_recompute[i]:.1f}")
for n in (4096, 32768):                   # extrapolated: kept (plain), kept (recompute), ratio
    kept_p, kept_r = (attention_backward.kept_bytes(n, 64, r) for r in (False, True))
    print(f"{n:5d}  {kept_p / mib:6.0f}  {kept_r / mib:5.2f}", " " * 21, f"{kept_p / kept_r:.1f}")

# %% slide="subslide"
ax = qk.plots.plot_backward_memory(costs)

# %% [markdown] lang="ko" slide="subslide"
# 일반 역전파는 n이 두 배가 되면 남겨 두는 메모리가 네 배 가까이 돼요(n = 32768이면 헤드 하나에 4 GiB). 다시 계산하는 역전파는 두 배로만 늘어요. 역전파의 행렬 곱을 25% 더 하는 대신, q, k, v와 출력 말고 더 남겨 두는 메모리가 n²에 비례하던 것에서 n에 비례하게 줄어요. q, k, v와 출력(모두 4·n·d개)은 두 방법 모두 남기니, 남겨 두는 전체 메모리는 (4·n·d + n²) ÷ (4·n·d + n), 곧 1 + n/(4d)배쯤 차이 나요(표의 마지막 열). n = 1024에서 약 5분의 1(n/(4d)가 4라서 1 + 4), n = 32768이면 130분의 1쯤으로 줄어요. GPU에서는 메모리를 읽고 쓰는 시간이 계산보다 오래 걸려서, FlashAttention처럼 여러 단계를 GPU 커널(한 번에 실행되는 계산 묶음) 하나로 합쳐 블록마다 계산하는 방식은 오히려 더 빠르기도 해요.

# %% [markdown] lang="en"
# In the plain backward, twice n means nearly four times the memory kept (at n = 32768, 4 GiB for one head). In the recomputing backward it only doubles. 25% more of the backward's matrix products make the extra memory, beyond q, k, v and the output, fall from n² numbers to n. Both keep q, k, v and the output (4·n·d numbers), so the total kept shrinks by (4·n·d + n²) / (4·n·d + n), about 1 + n/(4d) (the table's last column): about 5× at n = 1024 (n/(4d) is 4, plus 1), about 130× at n = 32768. On a GPU, moving memory costs more than arithmetic, so FlashAttention's fused, tiled kernel is often faster too.

# %% [markdown] lang="ko" slide="slide"
# ## 8. 위젯: 직접 만든 문장 번역하기
#
# 드롭다운으로 영어 문장을 만들면 학습한 모델이 그리디로 번역하고, 모델이 만든 번역을 디코더에 다시 넣었을 때의 크로스 어텐션을 보여 줘요. 번역이 맞으면 정답 정렬에 테두리가 그려져요.
#
# **해 볼 것**
# - 형용사를 넣었다 뺐다 해 보세요. 원문이 길어지면 동사 행이 보는 열이 어떻게 움직이나요?
# - 따로 둔 조합(예: 위의 `held` 문장의 주어와 장소)을 골라도 맞게 번역하나요?

# %% [markdown] lang="en"
# ## 8. Widget: translate a sentence you build
#
# Build an English sentence with the dropdowns: the trained model translates it greedily and shows its cross-attention with its own translation fed in. When the translation is right, the gold alignment is outlined.
#
# **Try this**
# - Add and remove adjectives. When the source gets longer, how does the column the verb's row looks at move?
# - Does it still translate a held-out combination (say, the subject and place of `held` above)?

# %% slide="subslide"
qk.widgets.sentence_translator(run.model)

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 망가뜨려 보기
#
# 학습을 일부러 망가뜨리고 곡선으로 원인을 읽어 봐요. 아래 셀은 학습률을 `lr=0.3`(정상 학습은 0.01)으로 바꿔 150스텝 학습해요. 다른 설정으로 바꿔 다시 돌려 봐도 좋아요. 예를 들어 `lr=0.3`을 지우고 `n_train=20`을 넣어, 학습 문장을 아주 적게 해 보세요. 4절의 정상 학습 곡선과 비교해 보고, `broken` 학습에 무슨 일이 일어났는지 아래에서 골라 `my_diagnosis`에 적어요.
#
# - `"a"`: 학습 손실이 처음에만 빠르게 내려가고, 끝까지 1보다 위에 머물러요.
# - `"b"`: 학습 손실은 0 가까이 내려갔는데 따로 둔 문장은 틀려요.
# - `"c"`: 정상 학습처럼 손실이 0.01 아래까지 내려가요.

# %% [markdown] lang="en"
# ## Try it: break it
#
# Break the training on purpose and read the cause from the curves. The cell below trains for 150 steps with the learning rate changed to `lr=0.3` (the normal run uses 0.01). Change the setting and run it again if you like: for instance remove `lr=0.3` and pass `n_train=20`, very few training sentences. Compare the curves with the normal run of section 4, choose what happened to `broken`, and write it in `my_diagnosis`:
#
# - `"a"`: the training loss drops quickly only at first, and stays above 1 to the end.
# - `"b"`: the training loss went near 0, but held-out sentences are wrong.
# - `"c"`: as in the normal run, the loss goes below 0.01.

# %% slide="subslide" ignore_output=true
bar = qk.widgets.training_progress(150)
display(bar)
broken = translator.train(steps=150, lr=0.3, callback=bar.update)   # ko: 설정을 바꿔 다시 돌려 봐도 돼요
                                                                    # en: change it, run it again
fig = qk.plots.plot_training_curves(broken.history)

# %% slide="subslide" exercise=true
my_diagnosis = ...                        # ko: "a", "b", "c" 중 하나
                                          # en: one of "a", "b", "c"
qk.checks.check_break_it(broken, my_diagnosis)

# %% solution=true
# en: lr = 0.3: the loss stays far above the normal run's. With n_train = 20: "b"
my_diagnosis = "a"                        # ko: lr = 0.3: 손실이 높은 곳에 머물러요. n_train = 20이면 "b"
qk.checks.check_break_it(broken, my_diagnosis).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - W_Q, W_K, W_V는 손실의 기울기를 따라 내려가며 학습돼요. 기울기는 연산마다 따로 짠 역전파를 연쇄 법칙(합성함수의 미분)으로 차례로 이어 붙여 구하고, 유한 차분으로 맞는지 검사할 수 있어요. 어텐션의 역전파 가운데에는 03강의 소프트맥스 야코비안이 있어요.
# - 작은 번역기는 몇 초만 학습해도 학습에 없던 조합까지 번역해요. 시드 0~4 모두 그래요.
# - 크로스 어텐션은 고르게 퍼진 상태에서 단어 정렬로 바뀌어요. 기울기가 정답 단어의 점수를 먼저 밀어 올리고, 가중치가 그 뒤를 따라가요. 어순 변화도 어텐션이 따라가요. 전치사가 후치사가 되는 건 모든 문장에서, 동사가 끝으로 가는 건 82%의 문장에서 따라가요("stood"의 행은 &lt;eos&gt;를 봐요, 5절).
# - 토큰 정확도는 정렬 일치도보다 먼저 올라가는데, 그 차이의 대부분은 정렬이 세지 않는 &lt;eos&gt; 행이에요. 완전 일치는 문장의 모든 토큰이 맞아야 해서 뒤처져요.
# - 어텐션은 정렬이 아니에요. 인코더 셀프 어텐션이 내용을 한국어에 대응하는 단어가 없는 토큰("the"나 &lt;eos&gt;)으로 옮기면(정보 섞임), 번역은 맞는데 어텐션은 다른 자리를 봐요.
# - 역전파에는 P가 필요해요. 일반 역전파는 (n, n) 크기의 P를 통째로 보관하고, FlashAttention-2는 출력과 행마다 로그-합-지수만 보관하고 P를 다시 계산해요. 행렬 곱은 5/4배로 늘고, q, k, v와 출력 말고 더 남기는 메모리는 n²에서 n으로 줄어요.
#
# 08강과 09강도 이 번역기를 써요. `translator.load_trained()`가 미리 학습해 저장해 둔(`make train`) 같은 매개변수를 불러오고, `Translator.as_tiny_transformer`가 그걸로 09강의 `TinyTransformer`를 만들어요.
#
# **다음 강**: [15. 인덕션 헤드](15_induction_heads.ipynb). 어텐션만 있는 디코더가 복사를 배우는 순간을 봐요. [10. 복습](10_review.ipynb)으로 돌아가도 돼요.

# %% [markdown] lang="en"
# ## Key takeaways
#
# - W_Q, W_K and W_V are learned by following the loss's gradient downhill. The gradient chains each op's written-out backward, and finite differences check it. At the heart of attention's backward is lesson 03's softmax Jacobian.
# - The small translator learns in seconds to translate combinations it never saw, seeds 0 to 4 alike.
# - Its cross-attention goes from spread out to the word alignment: the gradient pushes the gold word's score up first, and the weights follow. It follows the reorderings too: the preposition → postposition move in every sentence, the verb's move to the end in 82% (the rows of "stood" read &lt;eos&gt;, section 5).
# - The per-token accuracy rises before the alignment agreement, mostly through the &lt;eos&gt; row the alignment leaves out, and the exact match, which needs every token of a sentence, comes last.
# - Attention is not alignment: when encoder self-attention copies content into another token, one with no word of its own (token mixing), the translation is right while attention looks elsewhere.
# - The backward needs P. Plain training keeps the whole (n, n) P; FlashAttention-2 keeps the output and one log-sum-exp per row and recomputes P: 5/4 of the matrix products, the extra memory beyond q, k, v and the output from n² down to n.
#
# Lessons 08 and 09 use this translator: `translator.load_trained()` loads the same parameters, trained in advance and saved (`make train`), and `Translator.as_tiny_transformer` makes lesson 09's `TinyTransformer` from them.
#
# **Next lesson**: [15. Induction heads](15_induction_heads.ipynb): watch an attention-only decoder learn to copy. Or go back to [10. Review](10_review.ipynb).
