from nbsource import Lesson

lesson = Lesson()

lesson.md(slide="slide", ko="""
# 14. 어텐션이 배우는 걸 지켜보기: numpy로 학습하는 작은 번역기

08강의 정렬 그림은 손으로 만든 숫자였어요. "앉았다"가 "sat"을 보는 건 우리가 그렇게 정해 뒀기 때문이었죠. 그럼 진짜 모델의 W_Q와 W_K는 어디서 올까요? 이번 시간에는 영어→한국어 번역기를 노트북 안에서 **처음부터 학습**시켜요. 역전파의 기울기를 numpy로 하나하나 적어 두었고, 학습은 몇 초면 끝나요. 그동안 크로스 어텐션이 고르게 퍼진 상태에서 단어 정렬로 바뀌는 걸 지켜봐요.

**이번 시간의 목표**
- 작은 문법으로 만든 영어–한국어 문장 쌍과 정답 정렬을 보고, 학습에 없던 조합을 따로 두는 이유를 알아요.
- 인코더–디코더의 역전파를 식으로 읽고, 유한 차분으로 기울기를 검사해요. 어텐션의 역전파를 직접 써 봐요.
- 번역기를 학습시키고, 크로스 어텐션이 정렬이 되는 걸 스텝마다 봐요: 동사는 문장 끝으로, 전치사는 명사 뒤의 후치사로 가요.
- 어텐션이 곧 정렬은 아니라는 걸 봐요. 인코더 셀프 어텐션을 켜면 번역은 맞는데 어텐션은 옆 토큰을 봐요.
- 역전파가 무엇을 보관해야 하는지 재요: 보통은 P 전체, FlashAttention은 행마다 로그-합-지수 하나만 두고 P를 다시 계산해요.

**수업 시간**: 약 70분
""", en="""
# 14. Watch attention learn: a small translator trained in numpy

Lesson 08's alignment picture was made by hand: "앉았다" looked at "sat" because we set it up that way. So where do a real model's W_Q and W_K come from? In this lesson we **train an English→Korean translator from scratch**, inside the notebook. Every gradient of the backward pass is written out in numpy, and training takes a few seconds. While it trains, we watch its cross-attention go from spread out to the word alignment.

**Goals for this lesson**
- Look at sentence pairs made by a small grammar, with their gold alignment, and see why combinations never seen in training are set aside.
- Read the backward pass of an encoder–decoder as formulas and check its gradients with finite differences; write attention's backward yourself.
- Train the translator and watch its cross-attention become the alignment, step by step: the verb moves to the end, the preposition becomes a postposition after the noun.
- See that attention is not alignment: with encoder self-attention on, the translation is right while a head reads a neighbouring token.
- Measure what the backward pass must keep: plain training keeps all of P; FlashAttention keeps one log-sum-exp per row and recomputes P.

**Class time**: about 70 minutes
""")

lesson.code(slide="skip", ko="""
import inspect

import numpy as np
from IPython.display import display
import qkv_helpers as qk
from qkv_helpers import attention_backward as ab
from qkv_helpers import backprop as bp
from qkv_helpers import lesson14_checks as checks14
from qkv_helpers import toy_corpus as tc
from qkv_helpers import translator as trn

qk.setup(lang=LANG)                       # 그림과 메시지의 언어
np.set_printoptions(precision=3, suppress=True)
""", en="""
import inspect

import numpy as np
from IPython.display import display
import qkv_helpers as qk
from qkv_helpers import attention_backward as ab
from qkv_helpers import backprop as bp
from qkv_helpers import lesson14_checks as checks14
from qkv_helpers import toy_corpus as tc
from qkv_helpers import translator as trn

qk.setup(lang=LANG)                       # language of plots and messages
np.set_printoptions(precision=3, suppress=True)
""")

lesson.md(slide="slide", ko="""
## 1. 작은 문법, 정답 정렬

문장은 모두 한 가지 틀에서 나와요: the [형용사] 주어 동사 전치사 the [형용사] 장소. 한국어로 옮기면 어순이 두 군데 바뀌어요. 동사는 맨 끝으로 가고, 전치사(on, in, under, behind)는 명사 **뒤에** 오는 후치사(위에, 안에, 아래에, 뒤에)가 돼요. 토큰은 영어 단어 하나, 한국어 어절 하나씩이에요. `alignment`는 한국어 토큰마다 그 토큰이 옮긴 영어 단어의 위치예요. "the"는 한국어에 대응하는 토큰이 없어요.
""", en="""
## 1. A small grammar, and the gold alignment

Every sentence comes from one pattern: the [adjective] subject verb preposition the [adjective] place. Korean reorders it twice: the verb goes to the end, and the preposition (on, in, under, behind) becomes a postposition **after** the noun (위에, 안에, 아래에, 뒤에). There is one token per English word and one per Korean eojeol (space-separated word). `alignment` gives, for each Korean token, the position of the English word it translates; "the" has no Korean token.
""")

lesson.code(ko="""
pair = tc.build_sentence("cat", "sat", "on", "mat", place_adjective="red")
print(pair.english)
print(pair.korean)
print(pair.alignment)                     # 고양이가→cat(1), 빨간→red(5), 매트→mat(6), 위에→on(3), 앉았다→sat(2)
""", en="""
pair = tc.build_sentence("cat", "sat", "on", "mat", place_adjective="red")
print(pair.english)
print(pair.korean)
print(pair.alignment)                     # 고양이가→cat(1), 빨간→red(5), 매트→mat(6), 위에→on(3), 앉았다→sat(2)
""")

lesson.md(ko="""
주격 조사도 규칙으로 붙여요. 마지막 음절에 받침이 있으면 "이"(곰이), 없으면 "가"(개가)예요. 한글 음절의 코드는 0xAC00 + (초성·21 + 중성)·28 + 종성이라서, 28로 나눈 나머지가 0이 아니면 받침이 있어요.
""", en="""
The subject particle follows a rule too: "이" after a final consonant (곰이), "가" after a vowel (개가). A Hangul syllable's code is 0xAC00 + (initial·21 + vowel)·28 + final, so the remainder by 28 is non-zero exactly when there is a final consonant.
""")

lesson.code("""
print([(noun, (ord(noun[-1]) - 0xAC00) % 28, tc.subject_particle(noun))
       for noun in ("곰", "개", "학생", "고양이")])
""")

lesson.md(slide="subslide", ko="""
학습 문장 3,000개, 검증 문장 200개, 그리고 **따로 둔** 문장 200개를 만들어요. 따로 둔 문장은 (주어, 장소) 조합이 학습 문장에 한 번도 나오지 않은 것들이에요. 단어는 모두 학습에서 봤지만 그 짝은 처음이에요. 그래서 이 문장들을 맞히면 문장을 외운 게 아니라 규칙을 배웠다는 뜻이에요. 모든 결과를 이 문장들로 재요.
""", en="""
We make 3,000 training sentences, 200 validation sentences and 200 **held-out** sentences. A held-out sentence has a (subject, place) combination that never occurs in training: every word was seen, never that pair. Translating them means the model learned the rules rather than memorising sentences. Every result below is measured on them.
""")

lesson.code(ko="""
corpus = tc.make_corpus()
print(len(corpus.train), len(corpus.valid), len(corpus.heldout))
held = corpus.heldout[0]
print(" ".join(held.english), "→", " ".join(held.korean))
seen = {p.words[1::4] for p in corpus.train}      # 학습 문장의 (주어, 장소) 조합
print(held.words[1::4], held.words[1::4] in seen)
""", en="""
corpus = tc.make_corpus()
print(len(corpus.train), len(corpus.valid), len(corpus.heldout))
held = corpus.heldout[0]
print(" ".join(held.english), "→", " ".join(held.korean))
seen = {p.words[1::4] for p in corpus.train}      # the (subject, place) pairs of training
print(held.words[1::4], held.words[1::4] in seen)
""")

lesson.md(slide="slide", ko="""
## 2. 모델: 09강의 TinyTransformer와 같은 구조

인코더 레이어 하나, 디코더 레이어 하나, d_model = 32, 헤드 1개예요. 레이어 정규화를 먼저 하는 구조(pre-LN), ReLU 피드포워드, 사인파 위치 인코딩, 편향 없음: 09강에서 디코딩한 `TinyTransformer`와 똑같아요. 그래서 학습한 매개변수를 그대로 `TinyTransformer`에 넣을 수 있어요.

하나만 단순하게 했어요. 처음 모델은 **인코더 셀프 어텐션을 꺼요**(`encoder_self_attention=False`). 그러면 인코더의 출력 벡터 하나하나가 자기 단어와 위치만 담아서, 크로스 어텐션이 단어를 읽으려면 그 단어의 자리를 봐야 해요. 켜면 어떻게 되는지는 6절에서 봐요.

영어와 한국어 토큰이 한 어휘(92개)에 있어서, 학습 전 손실은 ln 92 ≈ 4.5 근처예요.
""", en="""
## 2. The model: the architecture of lesson 09's TinyTransformer

One encoder layer, one decoder layer, d_model = 32, one head. Layer norm before each sub-layer (pre-LN), a ReLU feed-forward, sinusoidal positions, no biases: the same architecture as the `TinyTransformer` lesson 09 decodes with, so the trained parameters go straight into a `TinyTransformer`.

One simplification: this first model **has no encoder self-attention** (`encoder_self_attention=False`). Each encoder output vector then holds its own word and position only, so to read a word, cross-attention must look at that word's position. Section 6 turns it on.

English and Korean share one vocabulary of 92 tokens, so before training the loss is near ln 92 ≈ 4.5.
""")

lesson.code(ko="""
vocab = tc.Vocabulary()
model = trn.Translator(len(vocab), d_model=32, n_heads=1, encoder_self_attention=False, seed=0)
batch = trn.make_batch(corpus.train[:4], vocab)
logits, cache = model.forward(batch)
print(model.n_parameters, batch.source.shape, batch.target_in.shape, logits.shape)
print(round(model.loss(batch), 2), round(np.log(len(vocab)), 2))   # 학습 전 손실, ln 92
""", en="""
vocab = tc.Vocabulary()
model = trn.Translator(len(vocab), d_model=32, n_heads=1, encoder_self_attention=False, seed=0)
batch = trn.make_batch(corpus.train[:4], vocab)
logits, cache = model.forward(batch)
print(model.n_parameters, batch.source.shape, batch.target_in.shape, logits.shape)
print(round(model.loss(batch), 2), round(np.log(len(vocab)), 2))   # loss before training, ln 92
""")

lesson.md(slide="slide", ko="""
## 3. 기울기를 하나하나 적어 두기

`qkv_helpers.backprop`에는 연산마다 순전파와 역전파가 나란히 있어요: 임베딩, 선형 변환, 레이어 정규화, ReLU, 크로스 엔트로피, 그리고 어텐션. 어텐션의 순전파는 05강부터 써 온 `qk.scaled_dot_product_attention` 그대로예요. 역전파는 다섯 줄이에요. 가운데의 `softmax_backward`는 03강에서 본 소프트맥스의 야코비안 J = diag(p) − p·pᵀ를 기울기에 곱한 거예요.
""", en="""
## 3. Every gradient written out

`qkv_helpers.backprop` puts each operation's forward and backward side by side: embedding, linear, layer norm, ReLU, cross-entropy, and attention. Attention's forward is `qk.scaled_dot_product_attention`, the one used since lesson 05. Its backward is five lines; the middle one, `softmax_backward`, applies the softmax's Jacobian from lesson 03, J = diag(p) − p·pᵀ.
""")

lesson.code("""
print(inspect.getsource(bp.softmax_backward))
print(inspect.getsource(bp.attention_backward))
""")

lesson.md(slide="subslide", ko="""
이 식들이 맞는지는 **유한 차분**으로 확인해요. 매개변수 하나를 ±ε만큼 움직여 손실이 얼마나 바뀌는지 재면, 그게 그 방향의 기울기예요. float64 모델로, 길이가 서로 달라 패딩이 들어간 배치에서 재요. 상대 오차는 노름으로 재요: ‖g − g_수치‖ / (‖g‖ + ‖g_수치‖). 기울기가 정확히 0인 자리(배치에 없는 토큰)도 공정하게 비교돼요.
""", en="""
We check these formulas with **finite differences**: nudge one parameter by ±ε and measure how the loss changes; that is the gradient in that direction. A float64 model, on a batch of sentences of different lengths (so with padding). The relative error is taken by norm, ‖g − g_numeric‖ / (‖g‖ + ‖g_numeric‖), which stays fair where a gradient is exactly 0 (tokens absent from the batch).
""")

lesson.code(ko="""
model64 = trn.Translator(len(vocab), 32, n_heads=2, seed=1, dtype=np.float64)
errors = trn.gradient_check(model64, trn.make_batch(corpus.train[:3], vocab))
print(f"{max(errors.values()):.1e}")     # 모든 매개변수 중 가장 큰 상대 오차
""", en="""
model64 = trn.Translator(len(vocab), 32, n_heads=2, seed=1, dtype=np.float64)
errors = trn.gradient_check(model64, trn.make_batch(corpus.train[:3], vocab))
print(f"{max(errors.values()):.1e}")     # the largest relative error over every parameter
""")

lesson.md(slide="slide", ko="""
## 직접 해보기: 쿼리 하나의 어텐션 역전파

쿼리 하나 `q` (d,), 키 `k` (n, d), 밸류 `v` (n, d_v)로 out = softmax(k·q/√d)·v를 계산해요. 출력의 기울기 `d_out` (d_v,)이 주어질 때, `d_q` (d,), `d_k` (n, d), `d_v` (n, d_v)를 돌려주는 함수 `my_backward(q, k, v, d_out)`를 써 보세요. 위 `attention_backward`의 다섯 줄을 쿼리가 하나뿐인 경우로 바꿔서 직접 짜 보세요. 행렬 곱 일부는 두 벡터로 행렬을 만드는 곱 `np.outer(a, b)`(a를 세로로, b를 가로로 세워 곱한 표)가 돼요. 벡터의 외적(a × b)과는 다른 거예요. 돌려주는 순서는 (d_q, d_k, d_v)예요. 검사기는 여러분이 본 적 없는 새 쿼리로 여러분의 답과 유한 차분 값을 비교하고, 패키지의 역전파(`bp.attention_backward` 같은)를 부르는 답은 받지 않아요.
""", en="""
## Try it: attention's backward for one query

With one query `q` (d,), keys `k` (n, d) and values `v` (n, d_v), out = softmax(k·q/√d)·v. Given the output's gradient `d_out` (d_v,), write `my_backward(q, k, v, d_out)` returning `d_q` (d,), `d_k` (n, d) and `d_v` (n, d_v). Rewrite the five lines of `attention_backward` above for a single query, yourself: some matrix products become outer products, `np.outer(a, b)`. The checker compares your answer with finite differences on queries you have not seen, and refuses an answer that calls the package's backward (`bp.attention_backward` and the like).
""")

lesson.code(exercise=True, ko="""
def my_backward(q, k, v, d_out):
    return ...                            # p를 구한 뒤 d_v, d_p, d_s, d_q, d_k 순서로 계산해요

checks14.check_attention_backward(my_backward)
""", en="""
def my_backward(q, k, v, d_out):
    return ...                            # p, then d_v, d_p, d_s, d_q, d_k: (d_q, d_k, d_v)

checks14.check_attention_backward(my_backward)
""")

lesson.code(solution=True, ko="""
# 풀이 · Solution (열어 보기 전에 먼저 풀어 보세요 · try it before you open this)
def my_backward(q, k, v, d_out):
    scale = 1 / np.sqrt(len(q))
    p = qk.softmax(k @ q * scale)         # (n,)
    d_v = np.outer(p, d_out)              # (n, d_v)
    d_p = v @ d_out                       # (n,)
    d_s = p * (d_p - p @ d_p)             # 야코비안 적용
    return d_s @ k * scale, np.outer(d_s, q) * scale, d_v

checks14.check_attention_backward(my_backward).as_solution()
""", en="""
# 풀이 · Solution (열어 보기 전에 먼저 풀어 보세요 · try it before you open this)
def my_backward(q, k, v, d_out):
    scale = 1 / np.sqrt(len(q))
    p = qk.softmax(k @ q * scale)         # (n,)
    d_v = np.outer(p, d_out)              # (n, d_v)
    d_p = v @ d_out                       # (n,)
    d_s = p * (d_p - p @ d_p)             # the Jacobian applied
    return d_s @ k * scale, np.outer(d_s, q) * scale, d_v

checks14.check_attention_backward(my_backward).as_solution()
""")

lesson.md(slide="slide", ko="""
## 4. 학습시키기

Adam으로 300스텝, 배치는 문장 32개예요. 학습률은 처음 20스텝 동안 0.02까지 올렸다가(워밍업) 코사인 곡선을 따라 0까지 내리고, 기울기 전체의 노름은 1.0에서 잘라요(클리핑). 10스텝마다 따로 둔 문장 100개를 그리디로 번역해 **완전 일치**(번역이 정답과 토큰 하나까지 같은 비율)와 **정렬 일치도**를 재요.

정렬 일치도는 이렇게 정해요. 따로 둔 문장에 정답 번역을 넣고(teacher forcing), 크로스 어텐션에서 한국어 토큰을 예측하는 행마다(마지막 &lt;eos&gt; 행은 빼고) 가장 큰 가중치가 정답 영어 단어에 있는 비율이에요. 헤드가 여럿이면 헤드 평균으로 재요. 원문 토큰이 8–9개라 아무렇게나 보면 0.1–0.2쯤 나와요.

학습 시간은 컴퓨터마다 달라요(CPU 한 코어로 몇 초).
""", en="""
## 4. Train it

Adam for 300 steps, batches of 32 sentences. The learning rate rises to 0.02 over the first 20 steps (warm-up), then follows a cosine down to 0; the gradients' overall norm is clipped at 1.0. Every 10 steps, 100 held-out sentences are translated greedily to measure the **exact match** (the fraction translated exactly, token for token) and the **alignment agreement**.

The alignment agreement is defined as follows: feed a held-out sentence's gold translation (teacher forcing); for each cross-attention row that predicts a Korean token (not the final &lt;eos&gt; row), is the largest weight on the gold English word? With several heads we take the heads' average. With 8–9 source tokens, looking anywhere gives about 0.1–0.2.

The training time depends on the computer (a few seconds on one CPU core).
""")

lesson.code(ko="""
bar = qk.widgets.training_progress(300)
display(bar)
run = trn.train(steps=300, seed=0, callback=bar.update)     # 인코더 셀프 어텐션 없음, 헤드 1개
print(f"{run.seconds:.1f} s")
""", en="""
bar = qk.widgets.training_progress(300)
display(bar)
run = trn.train(steps=300, seed=0, callback=bar.update)     # no encoder self-attention, 1 head
print(f"{run.seconds:.1f} s")
""", ignore_output=True)

lesson.code(ko="""
for r in run.history[::3]:                # 스텝, 손실, 완전 일치, 정렬 일치도
    print(f"{r['step']:4d}  {r['loss']:.3f}  {r['exact_match']:.2f}  {r['alignment']:.2f}")
fig = qk.plots.plot_training_curves(run.history)
""", en="""
for r in run.history[::3]:                # step, loss, exact match, alignment agreement
    print(f"{r['step']:4d}  {r['loss']:.3f}  {r['exact_match']:.2f}  {r['alignment']:.2f}")
fig = qk.plots.plot_training_curves(run.history)
""")

lesson.md(ko="""
점선이 정렬 일치도가 처음 0.8을 넘은 스텝이에요. 그때 완전 일치는 아직 0.2도 안 돼요. **정렬이 먼저 생기고, 정확도는 그 뒤에 올라가요.** 어디를 봐야 하는지 먼저 배우고, 본 것을 어떤 한국어 단어로 옮길지는 나중에 다듬는 거예요. 따로 둔 문장 200개 전부로 마지막 모델을 재 봐요.
""", en="""
The dotted line is the step where the alignment agreement first passes 0.8. The exact match is still below 0.2 there: **the alignment forms first, the accuracy rises after it.** The model learns where to look before it polishes which Korean word to write for what it sees. Now measure the final model on all 200 held-out sentences.
""")

lesson.code(ko="""
heldout = trn.make_batch(corpus.heldout, vocab)
weights = run.model.cross_attention(heldout)              # (문장, 헤드, 번역 토큰, 원문 토큰)
print(weights.shape, trn.exact_match(run.model, corpus.heldout, vocab),
      round(trn.alignment_agreement(weights, corpus.heldout), 3))
""", en="""
heldout = trn.make_batch(corpus.heldout, vocab)
weights = run.model.cross_attention(heldout)              # (sentences, heads, target, source)
print(weights.shape, trn.exact_match(run.model, corpus.heldout, vocab),
      round(trn.alignment_agreement(weights, corpus.heldout), 3))
""")

lesson.md(slide="slide", ko="""
## 5. 위젯: 어텐션이 정렬이 되는 순간

슬라이더로 학습 스텝을 골라요. 왼쪽은 따로 둔 문장 하나의 크로스 어텐션이에요. 행은 그 행이 예측하는 한국어 토큰, 열은 영어 토큰이고, 주황색 테두리가 정답 정렬이에요. 오른쪽 곡선의 검은 선이 지금 스텝이에요.

**해 볼 것**
- 스텝 0에서 시작하세요. 가중치가 어디에 있나요?
- 천천히 올려 보세요. 어느 행이 먼저 정답 칸을 찾나요? 동사 행(&lt;eos&gt; 바로 위, 마지막 한국어 토큰)은 언제 찾나요?

**눈여겨볼 것**
- 동사 행은 원문의 앞쪽 단어(주어 바로 다음 단어)를 봐요. 어순이 바뀐 만큼 어텐션이 원문을 거슬러 올라가 동사를 찾아요.
- 후치사 행(위에, 안에 …)은 장소 명사 **다음**에 오지만, 원문에서는 명사보다 **앞**의 전치사를 봐요.
""", en="""
## 5. Widget: the moment attention becomes alignment

Pick a training step with the slider. On the left, one held-out sentence's cross-attention: rows are labelled with the Korean token the row predicts, columns are the English tokens, and the orange outlines are the gold alignment. The black line on the curves is the current step.

**Try this**
- Start at step 0. Where are the weights?
- Move up slowly. Which rows find their gold cell first? When does the verb's row (the last Korean token) find it?

**Notice**
- The verb's row looks at a word near the front of the source (the word right after the subject). Attention reaches back as far as the word order moved.
- The postposition's row (위에, 안에, …) comes **after** the place noun, yet it looks at the preposition that comes **before** the noun in the source.
""")

lesson.code(slide="subslide", source="""
qk.widgets.attention_learning_explorer(run)
""")

lesson.md(slide="slide", ko="""
## 6. 어텐션은 정렬이 아니에요

이제 인코더 셀프 어텐션을 켜고 헤드도 2개로 늘려서 같은 조건으로 다시 학습해요(몇 초). 인코더 셀프 어텐션이 있으면 인코더가 단어의 내용을 옆 토큰("the"나 &lt;eos&gt;)으로 옮겨 담을 수 있어요. 그러면 크로스 어텐션은 단어를 그 단어의 자리가 아닌 곳에서 읽어도 돼요.

`where_attention_lands`는 한국어 토큰의 행이 가장 많이 보는 곳을 네 가지로 나눠 세요: 정답 단어, "the", &lt;eos&gt;, 다른 단어.
""", en="""
## 6. Attention is not alignment

Now turn encoder self-attention on, use 2 heads, and train again with the same settings (a few seconds). With encoder self-attention, the encoder can copy a word's content into a neighbouring token ("the" or &lt;eos&gt;), and cross-attention can then read the word somewhere other than its own position.

`where_attention_lands` sorts where each Korean token's row looks most into four kinds: its gold word, "the", &lt;eos&gt;, another word.
""")

lesson.code(ko="""
run_sa = trn.train(steps=300, seed=0, encoder_self_attention=True, n_heads=2)
weights_sa = run_sa.model.cross_attention(heldout)
for r, w in ((run, weights), (run_sa, weights_sa)):     # 완전 일치, 어텐션이 향한 곳
    lands = trn.where_attention_lands(w, corpus.heldout)
    print(trn.exact_match(r.model, corpus.heldout, vocab),
          {kind: round(share, 2) for kind, share in lands.items()})
""", en="""
run_sa = trn.train(steps=300, seed=0, encoder_self_attention=True, n_heads=2)
weights_sa = run_sa.model.cross_attention(heldout)
for r, w in ((run, weights), (run_sa, weights_sa)):     # exact match, where attention lands
    lands = trn.where_attention_lands(w, corpus.heldout)
    print(trn.exact_match(r.model, corpus.heldout, vocab),
          {kind: round(share, 2) for kind, share in lands.items()})
""")

lesson.md(ko="""
두 모델 모두 따로 둔 문장을 전부 맞게 번역해요. 그런데 셀프 어텐션을 켠 모델은 한국어 토큰의 약 3분의 1이 정답 단어가 아닌 곳, 주로 "the"와 &lt;eos&gt;를 봐요. 앞에서 본 문장의 헤드별 그림을 보세요. "누웠다"의 행이 "lay"가 아니라 &lt;eos&gt;나 "under"를 봐요. 인코더가 "lay"의 내용을 그 자리에 옮겨 두었으니 번역에는 문제가 없어요.

그러니 어텐션 가중치는 **모델이 어느 벡터를 읽었는지**를 알려 줄 뿐, 그 벡터에 **어느 단어의 정보가 들어 있는지**는 알려 주지 않아요. 11강에서 본 "어텐션 가중치는 설명이 아니다"와 같은 이야기예요.
""", en="""
Both models translate every held-out sentence correctly. Yet with encoder self-attention about a third of the Korean tokens look somewhere other than their gold word, mostly "the" and &lt;eos&gt;. Look at the per-head maps of the sentence from before: the row of "누웠다" looks at &lt;eos&gt; or "under", not "lay". The encoder copied "lay"'s content there, so the translation is fine.

So attention weights tell **which vector the model read**, not **which word's information that vector holds**: the same lesson as lesson 11's "attention weights are not explanations".
""")

lesson.code(slide="subslide", source="""
w0 = run_sa.model.cross_attention(trn.make_batch([held], vocab))[0]   # (heads, target, source)
fig = qk.plots.plot_alignment_maps(w0, [*held.korean, "<eos>"], [*held.english, "<eos>"],
                                   held.alignment)
""")

lesson.md(slide="slide", ko="""
## 직접 해보기: 새 문장의 동사는 어디를 볼까요

셀프 어텐션을 켠 모델(`run_sa.model`)에 새 문장 "the white rabbit hid behind the small bench"(하얀 토끼가 작은 벤치 뒤에 숨었다)를 넣어요. 이 문장의 어텐션 그림은 아직 한 번도 보지 않았어요. 한국어 동사 "숨었다"를 예측하는 행(두 헤드의 평균)은 원문 토큰 중 무엇에 가장 큰 가중치를 둘까요? 6절에서 본 걸 떠올려 먼저 예측하고, `my_word`에 원문 토큰 하나(영어 단어나 "&lt;eos&gt;")를 따옴표로 감싸 적은 뒤 검사기로 확인해 보세요. 틀리면 검사기는 답을 알려 주지 않아요.
""", en="""
## Try it: where does a new sentence's verb look?

Give the model with encoder self-attention (`run_sa.model`) a new sentence, "the white rabbit hid behind the small bench" (하얀 토끼가 작은 벤치 뒤에 숨었다), whose attention you have not seen. The row that predicts the Korean verb "숨었다" (the two heads averaged): which source token gets its largest weight? Predict it from what section 6 showed, write one source token (an English word or "&lt;eos&gt;") in quotes in `my_word`, then check. A wrong guess is not told the answer.
""")

lesson.code(exercise=True, ko="""
new_pair = tc.build_sentence("rabbit", "hid", "behind", "bench", "white", "small")
my_word = ...                             # 원문 토큰 하나, 예: "the"
checks14.check_verb_attention(my_word, run_sa.model, new_pair)
""", en="""
new_pair = tc.build_sentence("rabbit", "hid", "behind", "bench", "white", "small")
my_word = ...                             # one source token, e.g. "the"
checks14.check_verb_attention(my_word, run_sa.model, new_pair)
""")

lesson.code(solution=True, ko="""
# 풀이 · Solution (열어 보기 전에 먼저 풀어 보세요 · try it before you open this)
my_word = "<eos>"                         # "hid"가 아니에요: 인코더가 동사의 내용을 <eos>에 옮겨 뒀어요
checks14.check_verb_attention(my_word, run_sa.model, new_pair).as_solution()
""", en="""
# 풀이 · Solution (열어 보기 전에 먼저 풀어 보세요 · try it before you open this)
my_word = "<eos>"                         # not "hid": the encoder moved the verb's content to <eos>
checks14.check_verb_attention(my_word, run_sa.model, new_pair).as_solution()
""")

lesson.md(slide="slide", ko="""
## 7. 역전파는 무엇을 보관해야 하나요

3절의 `attention_backward`는 순전파에서 만든 가중치 P를 읽어요. 그래서 보통의 학습은 헤드마다, 레이어마다 (n, n) 크기의 P를 역전파 때까지 메모리에 들고 있어요. 13강에서 본 FlashAttention은 순전파에서도 P를 통째로 만들지 않았죠. 그럼 역전파는요? FlashAttention은 행마다 **로그-합-지수** L = log Σ exp(s) 하나(n개)만 남겨 두고, 역전파에서 키 블록마다 P = exp(s − L)을 **다시 계산**해요. 기울기는 같아요.
""", en="""
## 7. What does the backward pass have to keep?

Section 3's `attention_backward` reads the weights P made by the forward pass. So plain training keeps an (n, n) P per head and per layer in memory until the backward pass. FlashAttention, as lesson 13 showed, never builds the whole P in the forward pass; what about the backward? It keeps only each row's **log-sum-exp** L = log Σ exp(s) (n numbers) and **recomputes** P = exp(s − L) block by block of keys in the backward. The gradients are the same.
""")

lesson.code(ko="""
rng = np.random.default_rng(0)
q, k, v, d_out = (rng.standard_normal((512, 64)) for _ in range(4))
out, p, lse = ab.forward_with_logsumexp(q, k, v)
plain = ab.plain_backward(d_out, q, k, v, p)
again = ab.recompute_backward(d_out, q, k, v, out, lse, block_size=64)
print(all(np.allclose(a, b) for a, b in zip(plain, again)), p.shape, lse.shape)
""", en="""
rng = np.random.default_rng(0)
q, k, v, d_out = (rng.standard_normal((512, 64)) for _ in range(4))
out, p, lse = ab.forward_with_logsumexp(q, k, v)
plain = ab.plain_backward(d_out, q, k, v, p)
again = ab.recompute_backward(d_out, q, k, v, out, lse, block_size=64)
print(all(np.allclose(a, b) for a, b in zip(plain, again)), p.shape, lse.shape)
""")

lesson.md(slide="subslide", ko="""
헤드 하나(d = 64, float32)로 n을 늘려 가며 재요: 역전파까지 보관하는 바이트, 역전파 동안의 최대 메모리(`tracemalloc`), 그리고 역전파의 FLOPs(부동소수점 연산 수). 다시 계산하는 쪽은 q·kᵀ를 한 번 더 하니 FLOPs가 5/4배예요. 메모리는 n = 1024까지 재고(이 노트북의 메모리를 작게 두려고요), 그 뒤는 P의 크기 4·n² 바이트로 어림해요.
""", en="""
Measure one head (d = 64, float32) as n grows: the bytes kept for the backward, the peak memory during the backward (`tracemalloc`), and the backward's FLOPs. Recomputing does q·kᵀ once more, so 5/4 of the FLOPs. Memory is measured up to n = 1024 (to keep this notebook's memory small); beyond, it is extrapolated from P's size, 4·n² bytes.
""")

lesson.code(ko="""
costs = ab.measure_backward([128, 256, 512, 1024])
mib = 2**20
# n, 보관(보통), 보관(다시 계산), 최대(보통), 최대(다시 계산), FLOPs 비율
for i, n in enumerate(costs.lengths):
    print(f"{n:5d}  {costs.kept_plain[i] / mib:6.2f}  {costs.kept_recompute[i] / mib:5.2f}  "
          f"{costs.peak_plain[i] / mib:6.2f}  {costs.peak_recompute[i] / mib:5.2f}  "
          f"{costs.flops_recompute[i] / costs.flops_plain[i]:.2f}")
for n in (4096, 32768):                   # 어림: P는 4·n² 바이트, L은 4·n 바이트
    print(f"{n:5d}  {4 * n * n / mib:8.0f} MiB  {4 * n / mib:.3f} MiB")
ax = qk.plots.plot_backward_memory(costs)
""", en="""
costs = ab.measure_backward([128, 256, 512, 1024])
mib = 2**20
# n, kept (plain), kept (recompute), peak (plain), peak (recompute), FLOPs ratio
for i, n in enumerate(costs.lengths):
    print(f"{n:5d}  {costs.kept_plain[i] / mib:6.2f}  {costs.kept_recompute[i] / mib:5.2f}  "
          f"{costs.peak_plain[i] / mib:6.2f}  {costs.peak_recompute[i] / mib:5.2f}  "
          f"{costs.flops_recompute[i] / costs.flops_plain[i]:.2f}")
for n in (4096, 32768):                   # extrapolated: P is 4·n² bytes, L is 4·n bytes
    print(f"{n:5d}  {4 * n * n / mib:8.0f} MiB  {4 * n / mib:.3f} MiB")
ax = qk.plots.plot_backward_memory(costs)
""")

lesson.md(ko="""
보통의 역전파는 n이 두 배가 되면 보관하는 메모리가 네 배가 돼요(n = 32768이면 헤드 하나에 4 GiB). 다시 계산하는 역전파는 두 배만 늘어요. 계산을 25% 더 하는 대신 메모리를 n배 가까이 아끼는 거예요. GPU에서는 메모리를 읽고 쓰는 시간이 계산보다 비싸서, 다시 계산하는 쪽이 오히려 더 빠르기도 해요.
""", en="""
In the plain backward, twice n means four times the memory kept (at n = 32768, 4 GiB for one head). In the recomputing backward it only doubles: 25% more arithmetic buys a memory saving close to a factor of n. On a GPU, moving memory costs more than arithmetic, so recomputing is often faster too.
""")

lesson.md(slide="slide", ko="""
## 8. 위젯: 직접 만든 문장 번역하기

드롭다운으로 영어 문장을 만들면 학습한 모델이 그리디로 번역하고, 자기 번역을 넣었을 때의 크로스 어텐션을 보여 줘요. 번역이 맞으면 정답 정렬에 테두리가 그려져요.

**해 볼 것**
- 형용사를 넣었다 뺐다 해 보세요. 원문이 길어지면 동사 행이 보는 열이 어떻게 움직이나요?
- 따로 둔 조합(예: 위의 `held` 문장의 주어와 장소)을 골라도 맞게 번역하나요?
""", en="""
## 8. Widget: translate a sentence you build

Build an English sentence with the dropdowns: the trained model translates it greedily and shows its cross-attention with its own translation fed in. When the translation is right, the gold alignment is outlined.

**Try this**
- Add and remove adjectives. When the source gets longer, how does the column the verb's row looks at move?
- Does it still translate a held-out combination (say, the subject and place of `held` above)?
""")

lesson.code(slide="subslide", source="""
qk.widgets.sentence_translator(run.model)
""")

lesson.md(slide="slide", ko="""
## 직접 해보기: 망가뜨려 보기

학습을 일부러 망가뜨리고 곡선으로 원인을 읽어 봐요. 아래 셀은 학습률을 아주 크게(`lr=0.3`) 해서 150스텝 학습해요. 다른 설정으로 바꿔 다시 돌려 봐도 좋아요. 예를 들어 `lr=0.3`을 지우고 `n_train=20`을 넣어, 학습 문장을 아주 적게 해 보세요. 4절의 정상 학습 곡선과 비교해 보고, `broken` 학습에 무슨 일이 일어났는지 아래에서 골라 `my_diagnosis`에 적어요.

- `"a"`: 학습 손실이 조금 내려가다 말고 정상 학습보다 훨씬 높은 곳(2 이상)에 머물다가, 학습률이 줄어들 때에야 조금씩 내려가요. 한 번에 고치는 양(학습률)이 너무 커서 제대로 배우지 못했어요.
- `"b"`: 학습 손실은 0 가까이 내려갔는데 따로 둔 문장은 틀려요. 문장을 외웠어요.
- `"c"`: 아무 문제 없이 배웠어요.
""", en="""
## Try it: break it

Break the training on purpose and read the cause from the curves. The cell below trains for 150 steps with a very large learning rate (`lr=0.3`). Change the setting and run it again if you like: for instance remove `lr=0.3` and pass `n_train=20`, very few training sentences. Compare the curves with the normal run of section 4, choose what happened to `broken`, and write it in `my_diagnosis`:

- `"a"`: the training loss falls a little, then stalls far above the normal run's (above 2) and creeps down only as the learning rate decays; the steps were too large to learn properly.
- `"b"`: the training loss went near 0 but held-out sentences are wrong; it memorised the sentences.
- `"c"`: it learned without trouble.
""")

lesson.code(ko="""
broken = trn.train(steps=150, lr=0.3)     # 설정을 바꿔 다시 돌려 봐도 돼요
fig = qk.plots.plot_training_curves(broken.history)
""", en="""
broken = trn.train(steps=150, lr=0.3)     # change the setting and run it again
fig = qk.plots.plot_training_curves(broken.history)
""")

lesson.code(exercise=True, ko="""
my_diagnosis = ...                        # "a", "b", "c" 중 하나
checks14.check_break_it(broken, my_diagnosis)
""", en="""
my_diagnosis = ...                        # one of "a", "b", "c"
checks14.check_break_it(broken, my_diagnosis)
""")

lesson.code(solution=True, ko="""
# 풀이 · Solution (열어 보기 전에 먼저 풀어 보세요 · try it before you open this)
my_diagnosis = "a"                        # lr = 0.3: 손실이 2보다 높은 곳에 머물러요. n_train = 20이면 "b"
checks14.check_break_it(broken, my_diagnosis).as_solution()
""", en="""
# 풀이 · Solution (열어 보기 전에 먼저 풀어 보세요 · try it before you open this)
my_diagnosis = "a"                        # lr = 0.3: the loss stalls above 2. With n_train = 20: "b"
checks14.check_break_it(broken, my_diagnosis).as_solution()
""")

lesson.md(slide="slide", ko="""
## 정리

- W_Q, W_K, W_V는 손실의 기울기를 따라 내려가며 학습돼요. 기울기는 연산마다 적은 역전파를 연쇄 법칙으로 이은 것이고, 유한 차분으로 검사할 수 있어요. 어텐션의 역전파 가운데에는 03강의 소프트맥스 야코비안이 있어요.
- 작은 번역기는 몇 초 만에 학습에 없던 조합까지 번역해요. 크로스 어텐션은 고르게 퍼진 상태에서 단어 정렬로 바뀌고, 정렬이 정확도보다 먼저 생겨요. 동사는 끝으로, 전치사는 후치사로 가는 어순 변화도 어텐션이 찾아가요.
- 어텐션은 정렬이 아니에요. 인코더가 내용을 옆 토큰으로 옮기면, 번역은 맞는데 어텐션은 다른 자리를 봐요.
- 역전파에는 P가 필요해요. 보통은 P를 (n, n)째로 보관하고, FlashAttention은 행마다 로그-합-지수만 보관하고 P를 다시 계산해요. FLOPs는 5/4배, 메모리는 n²에서 n으로 줄어요.

08강과 09강도 이 학습된 번역기를 다시 쓸 수 있어요. `trn.load_trained()`가 `make train`으로 만든 같은 매개변수를 불러오고, `trn.to_tiny_transformer`가 그걸 09강의 `TinyTransformer`에 넣어요.

[다음: 10. 복습 →](10_review.ipynb)
""", en="""
## Key takeaways

- W_Q, W_K and W_V are learned by following the loss's gradient downhill. The gradient chains each op's written-out backward, and finite differences check it. At the heart of attention's backward is lesson 03's softmax Jacobian.
- The small translator learns in seconds to translate combinations it never saw. Its cross-attention goes from spread out to the word alignment, and the alignment forms before the accuracy does; it follows the reorderings too, the verb to the end and the preposition to a postposition.
- Attention is not alignment: when the encoder copies content into a neighbouring token, the translation is right while attention looks elsewhere.
- The backward needs P. Plain training keeps the whole (n, n) P; FlashAttention keeps one log-sum-exp per row and recomputes P: 5/4 of the FLOPs, memory from n² down to n.

Lessons 08 and 09 can use this trained translator too: `trn.load_trained()` loads the same parameters `make train` wrote, and `trn.to_tiny_transformer` puts them into lesson 09's `TinyTransformer`.

[Next: 10. Review →](10_review.ipynb)
""")
