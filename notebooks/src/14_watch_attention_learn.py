from nbsource import Lesson

lesson = Lesson()

lesson.md(slide="slide", ko="""
# 14. 어텐션이 배우는 걸 지켜보기: numpy로 학습하는 작은 번역기

08강의 첫 번째 정렬 그림은 우리가 손으로 정해 넣은 숫자로 그린 거였어요. "앉았다"가 "sat"을 보는 건 우리가 그렇게 정해 뒀기 때문이었죠. 그 옆의 학습된 그림은 이번 시간에 만들 번역기에서 나왔어요. 그럼 그 W_Q와 W_K는 어디서 올까요? 이번 시간에는 영어→한국어 번역기를 노트북 안에서 **처음부터 학습**시켜요. 학습은 **손실**(모델의 답이 정답과 얼마나 다른지 나타내는 숫자)을 줄이는 방향으로 매개변수를 조금씩 고치는 일이에요. 그 방향을 알려 주는 게 **기울기**이고, 기울기를 출력 쪽에서 입력 쪽으로 거꾸로 계산해 나가는 방법이 **역전파**예요(입력에서 출력으로 차례로 계산해 나가는 건 **순전파**라고 해요). 역전파로 기울기를 구하는 코드를 numpy로 하나하나 직접 짜 두었고, 학습은 몇 초면 끝나요. 그동안 크로스 어텐션이 고르게 퍼진 상태에서 단어 정렬로 바뀌는 걸 지켜봐요.

**이번 시간의 목표**
- 작은 문법으로 만든 영어–한국어 문장 쌍과 정답 정렬을 보고, 학습에 없던 조합을 따로 두는 이유를 알아봐요.
- 인코더–디코더의 역전파를 식으로 읽고, 유한 차분으로 기울기를 검사해요. 어텐션의 역전파를 직접 구현해 봐요.
- 번역기를 학습시키고, 크로스 어텐션이 정렬이 되는 걸 스텝마다 봐요: 동사는 문장 끝으로, 전치사는 명사 뒤의 후치사로 가요.
- 어텐션이 곧 정렬은 아니라는 걸 봐요. 인코더 셀프 어텐션을 켜면 번역은 맞는데 어텐션은 정답 단어가 아니라, 자기 단어가 없는 다른 토큰("the"나 &lt;eos&gt;)을 봐요.
- 역전파가 무엇을 메모리에 남겨 둬야 하는지 재 봐요. 일반적인 방법은 어텐션 가중치 P를 통째로 남기고, FlashAttention-2는 출력과 함께 행마다 숫자 하나(로그-합-지수)만 남긴 뒤 역전파 때 P를 다시 계산해요.

**수업 시간**: 약 90분
""", en="""
# 14. Watch attention learn: a small translator trained in numpy

Lesson 08's first alignment picture was made by hand: "앉았다" looked at "sat" because we set it up that way. The trained picture next to it came from the translator this lesson builds. So where do its W_Q and W_K come from? In this lesson we **train an English→Korean translator from scratch**, inside the notebook. Every gradient of the backward pass is written out in numpy, and training takes a few seconds. While it trains, we watch its cross-attention go from spread out to the word alignment.

**Goals for this lesson**
- Look at sentence pairs made by a small grammar, with their gold alignment, and see why combinations never seen in training are set aside.
- Read the backward pass of an encoder–decoder as formulas and check its gradients with finite differences; write attention's backward yourself.
- Train the translator and watch its cross-attention become the alignment, step by step: the verb moves to the end, the preposition becomes a postposition after the noun.
- See that attention is not alignment: with encoder self-attention on, the translation is right while a head reads another token, one that carries no word of its own (a "the" or &lt;eos&gt;).
- Measure what the backward pass must keep: plain training keeps all of P; FlashAttention-2 keeps one log-sum-exp per row (and the output) and recomputes P.

**Class time**: about 90 minutes
""")

lesson.code(slide="skip", ko="""
import inspect

import numpy as np
from IPython.display import display
import qkv_helpers as qk
from qkv_helpers import attention_backward, backprop, toy_corpus, translator

qk.setup(lang=LANG)                       # 그림과 메시지의 언어
np.set_printoptions(precision=3, suppress=True)
""", en="""
import inspect

import numpy as np
from IPython.display import display
import qkv_helpers as qk
from qkv_helpers import attention_backward, backprop, toy_corpus, translator

qk.setup(lang=LANG)                       # language of plots and messages
np.set_printoptions(precision=3, suppress=True)
""")

lesson.md(slide="slide", ko="""
## 1. 작은 문법, 정답 정렬

문장은 모두 한 가지 틀에서 나와요: the [형용사] 주어 동사 전치사 the [형용사] 장소. 한국어로 옮기면 어순이 두 군데 바뀌어요. 동사는 맨 끝으로 가고, 전치사(on, in, under, behind)는 명사 **뒤에** 오는 후치사(위에, 안에, 아래에, 뒤에)가 돼요. 후치사는 영어 전치사처럼 쓰이지만 명사 뒤에 오는 말이에요. 학교 문법으로 보면 위·안·아래·뒤라는 명사에 조사 "에"가 붙은 거예요. 토큰은 영어는 단어 하나, 한국어는 어절(띄어쓰기로 나뉜 덩어리, 예: 고양이가) 하나예요. 조사는 어절 안에 붙어 있어요. `alignment`에는 한국어 토큰마다 그 토큰이 옮긴 영어 단어의 위치가 들어 있어요(위치는 0부터 세요. 맨 앞 "the"가 0번이에요). "the"는 한국어에 대응하는 토큰이 없어요.
""", en="""
## 1. A small grammar, and the gold alignment

Every sentence comes from one pattern: the [adjective] subject verb preposition the [adjective] place. Korean reorders it twice: the verb goes to the end, and the preposition (on, in, under, behind) becomes a postposition **after** the noun (위에, 안에, 아래에, 뒤에). There is one token per English word and one per Korean eojeol (space-separated word). `alignment` gives, for each Korean token, the position of the English word it translates; "the" has no Korean token.
""")

lesson.md(slide="subslide", ko="""
단어를 아무렇게나 조합하지는 않아요. 모든 문장이 말이 되게 만들어요. 주어는 모두 동물이에요. 선생님 같은 사람이 주어면 "선생님께서 앉으셨다"처럼 높임말을 써야 해서 이 작은 문법으로는 자연스럽게 옮길 수 없거든요. "in"(안에)은 상자·가방·차·집처럼 안이 있는 장소에만 쓰고, 큰 동물은 상자 안이나 의자 아래에 들어가지 않고, 색깔은 그 색이 어울리는 명사에만 붙여요. 동사도 어울리는 전치사하고만 써요("매트 위에 숨었다", "상자 안에 섰다"는 없어요). 말과 사슴은 앉지 않고, 새는 눕지 않고, 개구리는 서지 않아요. 말이 안 되는 조합이면 `toy_corpus.nonsense`가 그 이유를 알려 줘요.
""", en="""
Words are not combined at random: every sentence makes sense. The subjects are all animals (a person such as a teacher would need honorific verbs in Korean, 선생님께서 앉으셨다); "in" (안에) goes only with places that have an inside (box, bag, car, house); a big animal does not get into a box or under a chair; a colour goes only with nouns it suits; a verb goes only with the prepositions that suit it (no "hid on the mat", no "stood in the box"); a horse or a deer does not sit, a bird does not lie down, a frog does not stand. For a combination that makes no sense, `toy_corpus.nonsense` says why.
""")

lesson.code(ko="""
pair = toy_corpus.build_sentence("cat", "sat", "on", "mat", place_adjective="red")
print(pair.english)
print(pair.korean)
print(pair.alignment)                     # 고양이가→cat(1), 빨간→red(5), 매트→mat(6), 위에→on(3), 앉았다→sat(2)
""", en="""
pair = toy_corpus.build_sentence("cat", "sat", "on", "mat", place_adjective="red")
print(pair.english)
print(pair.korean)
print(pair.alignment)                     # 고양이가→cat(1), 빨간→red(5), 매트→mat(6), 위에→on(3), 앉았다→sat(2)
""")

lesson.md(ko="""
주격 조사도 규칙으로 붙여요. 마지막 음절에 받침이 있으면 "이"(곰이), 없으면 "가"(개가)예요. 한글 음절의 유니코드 번호는 0xAC00 + (초성·21 + 중성)·28 + 종성이라서, <b>(번호 − 0xAC00)</b>을 28로 나눈 나머지가 종성 번호예요. 0이면 받침이 없고, 0이 아니면 있어요.
""", en="""
The subject particle follows a rule too: "이" after a final consonant (곰이), "가" after a vowel (개가). A Hangul syllable's code point is 0xAC00 + (initial·21 + vowel)·28 + final, so the remainder of **(code point − 0xAC00)** by 28 is the final consonant's number: 0 means none.
""")

lesson.code("""
print([(noun, (ord(noun[-1]) - 0xAC00) % 28, toy_corpus.subject_particle(noun))
       for noun in ("곰", "개", "닭", "고양이")])
""")

lesson.md(slide="subslide", ko="""
학습 문장 3,000개, 검증 문장(학습에 쓰지 않고 확인에만 쓰는 문장) 200개, 그리고 **따로 둔** 문장 200개를 만들어요. 따로 둔 문장은 (주어, 장소) 조합이 학습 문장에 한 번도 나오지 않은 것들이에요. 단어는 모두 학습에서 봤지만 이 주어와 이 장소가 함께 나온 적은 없어요. 이 문법에서는 한국어 단어 하나하나가 영어 단어 하나만 보면 정해지니, 어려운 시험은 아니에요. 그래도 외운 문장이 아니라는 건 확실해요. 아래 결과는 모두 이 따로 둔 문장들로 잰 거예요.
""", en="""
We make 3,000 training sentences, 200 validation sentences and 200 **held-out** sentences. A held-out sentence has a (subject, place) combination that never occurs in training: every word was seen, never this subject with this place. In this grammar each Korean word depends on one English word only, so it is not a hard test; but these are surely not memorised sentences. Every result below is measured on them.
""")

lesson.code(ko="""
corpus = toy_corpus.make_corpus()
print(len(corpus.train), len(corpus.valid), len(corpus.heldout))
held = corpus.heldout[0]
print(" ".join(held.english), "→", " ".join(held.korean))
seen = {p.words[1::4] for p in corpus.train}      # 학습 문장의 (주어, 장소) 조합
print(held.words[1::4], held.words[1::4] in seen)  # (주어, 장소), 학습에 나왔나요?
""", en="""
corpus = toy_corpus.make_corpus()
print(len(corpus.train), len(corpus.valid), len(corpus.heldout))
held = corpus.heldout[0]
print(" ".join(held.english), "→", " ".join(held.korean))
seen = {p.words[1::4] for p in corpus.train}      # the (subject, place) pairs of training
print(held.words[1::4], held.words[1::4] in seen)  # (subject, place), seen in training?
""")

lesson.md(slide="slide", ko="""
## 2. 모델: 09강의 TinyTransformer와 같은 구조

인코더 레이어 하나, 디코더 레이어 하나, d_model = 32, 헤드 1개예요. 구조는 09강에서 디코딩에 썼던 `TinyTransformer`와 똑같아요. 각 부분 앞에서 레이어 정규화를 하고(pre-LN), 피드포워드는 ReLU를 쓰고, 위치는 사인파 위치 인코딩으로 넣고, 편향은 없어요. 그래서 학습한 매개변수를 `TinyTransformer`에 넣을 수 있어요. 이 번역기가 쓰지 않는 인코더 셀프 어텐션(아래)의 매개변수(W_Q, W_K, W_V, W_O)에는 0을 채워서, 아무것도 더하지 않게 해요.

하나만 단순하게 했어요. 첫 번째 모델에서는 **인코더 셀프 어텐션을 꺼 둬요**(`encoder_self_attention=False`). 그러면 인코더의 출력 벡터 하나하나가 자기 단어와 위치 정보만 담고 있어서, 크로스 어텐션이 단어를 읽으려면 그 단어의 자리를 봐야 해요. 켜면 어떻게 되는지는 6절에서 봐요.

영어와 한국어 토큰이 어휘 사전 하나(토큰 92개)를 함께 써요. 손실은 **크로스 엔트로피**예요. 정답 토큰에 준 확률 p의 −log p라서, 정답에 확률을 많이 줄수록 작아져요. 92개 모두에 똑같이 1/92를 주는 모델이라면 손실은 ln 92 ≈ 4.5예요. 학습 전 모델은 매개변수가 무작위라 로짓(소프트맥스에 들어가는 점수)이 표준편차 1쯤으로 흩어져 있어요. 그래서 손실이 그보다 0.5~0.6쯤 높게 나와요(아래 5.15).
""", en="""
## 2. The model: the architecture of lesson 09's TinyTransformer

One encoder layer, one decoder layer, d_model = 32, one head. Layer norm before each sub-layer (pre-LN), a ReLU feed-forward, sinusoidal positions, no biases: the same architecture as the `TinyTransformer` lesson 09 decodes with, so the trained parameters go into a `TinyTransformer`, with zeros for the encoder self-attention that this first model leaves out (below), so that it adds nothing.

One simplification: this first model **has no encoder self-attention** (`encoder_self_attention=False`). Each encoder output vector then holds its own word and position only, so to read a word, cross-attention must look at that word's position. Section 6 turns it on.

English and Korean share one vocabulary of 92 tokens. The loss is the cross-entropy, −log of the probability given to the gold token. A model giving every token 1/92 would score ln 92 ≈ 4.5; the untrained model's logits, spread with a standard deviation of about 1 by its random parameters, add 0.5 to 0.6 to that (5.15 below).
""")

lesson.code(ko="""
vocab = toy_corpus.Vocabulary()
model = translator.Translator(len(vocab), d_model=32, n_heads=1, encoder_self_attention=False,
                              seed=0)
batch = translator.make_batch(corpus.train[:4], vocab)
logits, cache = model.forward(batch)
# 매개변수 수, 원문 (문장, 토큰), 번역 입력 (문장, 토큰), 로짓 (문장, 토큰, 어휘)
print(model.n_parameters, batch.source.shape, batch.target_in.shape, logits.shape)
print(round(model.loss(batch), 2), round(np.log(len(vocab)), 2))   # 학습 전 손실, ln 92
""", en="""
vocab = toy_corpus.Vocabulary()
model = translator.Translator(len(vocab), d_model=32, n_heads=1, encoder_self_attention=False,
                              seed=0)
batch = translator.make_batch(corpus.train[:4], vocab)
logits, cache = model.forward(batch)
# parameters, source (sentences, tokens), decoder input (sentences, tokens), logits (…, vocab)
print(model.n_parameters, batch.source.shape, batch.target_in.shape, logits.shape)
print(round(model.loss(batch), 2), round(np.log(len(vocab)), 2))   # loss before training, ln 92
""")

lesson.md(slide="slide", ko="""
## 3. 기울기를 직접 계산하기

`qkv_helpers.backprop`에는 연산마다 순전파와 역전파가 나란히 있어요. 임베딩, 선형 변환, 레이어 정규화, ReLU, 크로스 엔트로피, 그리고 어텐션이에요. 모델 전체의 기울기는 연산마다 따로 짠 역전파를 **연쇄 법칙**(합성함수의 미분)으로 출력 쪽부터 차례로 이어 붙여 구해요. 어텐션의 순전파는 05강부터 써 온 `qk.scaled_dot_product_attention` 그대로예요. 역전파는 다섯 줄이에요. 가운데의 `softmax_backward`는 03강에서 본 소프트맥스의 야코비안 J = diag(p) − p·pᵀ를 위에서 내려온 기울기 d_p에 곱하는 거예요.
""", en="""
## 3. Every gradient written out

`qkv_helpers.backprop` puts each operation's forward and backward side by side: embedding, linear, layer norm, ReLU, cross-entropy, and attention. Attention's forward is `qk.scaled_dot_product_attention`, the one used since lesson 05. Its backward is five lines; the middle one, `softmax_backward`, applies the softmax's Jacobian from lesson 03, J = diag(p) − p·pᵀ.
""")

lesson.code("""
print(inspect.getsource(backprop.softmax_backward))
""")

lesson.code("""
print(inspect.getsource(backprop.attention_backward))
""", slide="subslide")

lesson.md(slide="subslide", ko="""
이 식들이 맞는지는 **유한 차분**으로 확인해요. 매개변수 하나를 아주 작은 수 ε만큼 올렸을 때와 내렸을 때 손실을 재서, 그 차이를 2ε으로 나누면 그 매개변수에 대한 기울기의 근삿값이 돼요. 반올림 오차가 작도록 float64(배정밀도 실수)로 만든 헤드 2개짜리 모델을 쓰고, 인코더 셀프 어텐션도 켜서 모든 매개변수를 검사해요. **배치**(한 번에 함께 계산하는 문장 묶음) 하나로 재는데, 배치 속 문장은 길이가 서로 달라서 짧은 문장 뒤는 패딩으로 채워져 있어요. 매개변수 배열 18개(임베딩과 가중치 행렬) 하나하나에서 원소 10개씩을 무작위로 골라 검사해요(임베딩은 배치에 나온 토큰의 행에서만 골라요). g는 역전파로 구한 기울기, g_수치는 유한 차분으로 구한 값이에요. 상대 오차는 원소 하나하나로 나눗셈하지 않고, 10개를 벡터 하나로 모아 그 길이(노름)로 한 번에 재요: ‖g − g_수치‖ / (‖g‖ + ‖g_수치‖). 그래서 기울기가 정확히 0인 원소(패딩 토큰 &lt;pad&gt;의 임베딩)가 섞여 있어도 0으로 나누지 않아요. 뽑은 원소 10개의 기울기가 (역전파 값도 수치 값도) 모두 정확히 0이면 아무것도 검사하지 못한 거라서, `gradient_check`는 통과로 치지 않고 오류를 내요.

출력 `18 True`는 배열 18개를 모두 검사했고, 그중 가장 큰 상대 오차도 1e-6보다 작다는 뜻이에요. 원소 몇 개만 골라 본 것이라 증명은 아니지만, 식이 틀리면 오차가 보통 1e-3에서 1 정도로 커서 식과 코드가 맞다고 믿을 수 있어요. 오차 값 자체는 컴퓨터마다 달라요. 계산 라이브러리가 CPU에 맞춰 덧셈 순서를 다르게 잡아서 손실의 맨 끝자리가 조금 달라지는데, 그 차이를 2ε(아주 작은 수)로 나누니 크게 부풀기 때문이에요. 그래서 값 대신 1e-6보다 작은지만 출력해요. `errors`를 출력해서 직접 확인해 보세요.
""", en="""
We check these formulas with **finite differences**: nudge one parameter up and down by a tiny ε, and the change in the loss divided by 2ε approximates its gradient. We use a float64 model with 2 heads and encoder self-attention on, so that every parameter is checked, and one batch of sentences of different lengths (so with padding). Ten random entries of each of the 18 parameter arrays (the embedding and the weight matrices) are checked (for the embedding, among the rows of tokens in the batch). g is the backprop gradient, g_numeric the finite-difference one; the relative error is taken by norm over those ten, ‖g − g_numeric‖ / (‖g‖ + ‖g_numeric‖), so an entry of `<pad>`'s embedding, whose gradient is exactly 0, causes no division by zero. If all ten picked entries have gradient exactly 0, both backprop and numeric, nothing would be checked: `gradient_check` then raises an error instead of reporting a perfect 0.

`18 True` means all 18 arrays were checked and even the largest relative error is below 1e-6. Only a few entries were sampled, so this is not a proof, but a wrong formula typically gives errors of 1e-3 to 1, so we can trust that formulas and code agree. The error values themselves differ between computers: numpy's numerical libraries pick different CPU code (e.g. AVX2 or AVX-512) that adds numbers in a different order, so the loss changes in its last digits, and dividing by 2ε blows that up. So we print only whether they are below 1e-6: print `errors` to see them.
""")

lesson.code(ko="""
model64 = translator.Translator(len(vocab), 32, n_heads=2, seed=1, dtype=np.float64)
errors = translator.gradient_check(model64, translator.make_batch(corpus.train[:3], vocab))
high = max(errors.values())
print(len(errors), high < 1e-6)   # 검사한 배열 수, 가장 큰 상대 오차가 1e-6보다 작은지
""", en="""
model64 = translator.Translator(len(vocab), 32, n_heads=2, seed=1, dtype=np.float64)
errors = translator.gradient_check(model64, translator.make_batch(corpus.train[:3], vocab))
high = max(errors.values())
print(len(errors), high < 1e-6)   # arrays checked; is the largest relative error below 1e-6?
""")

lesson.md(slide="slide", ko="""
## 직접 해보기: 쿼리 하나의 어텐션 역전파

쿼리 하나 `q` (d,), 키 `k` (n, d), 밸류 `v` (n, d_v)로 out = softmax(k·q/√d)·v를 계산해요. 출력의 기울기 `d_out` (d_v,)이 주어질 때, `d_q` (d,), `d_k` (n, d), `d_v` (n, d_v)를 돌려주는 함수 `my_backward(q, k, v, d_out)`를 만들어 보세요. 위 `attention_backward`의 다섯 줄을 쿼리가 하나뿐인 경우로 바꾸면 돼요. 행렬 곱 일부는 `np.outer(a, b)`가 돼요. a를 열벡터, b를 행벡터로 놓고 곱한 행렬로, (i, j) 칸이 a_i·b_j예요. 벡터의 외적(a × b)과는 다른 거예요. 돌려주는 순서는 (d_q, d_k, d_v)예요. 검사기는 여러분이 본 적 없는 새 쿼리로 여러분의 답과 유한 차분 값을 비교하고, 패키지의 역전파(`backprop.attention_backward` 같은)를 부르는 답은 받지 않아요.
""", en="""
## Try it: attention's backward for one query

With one query `q` (d,), keys `k` (n, d) and values `v` (n, d_v), out = softmax(k·q/√d)·v. Given the output's gradient `d_out` (d_v,), write `my_backward(q, k, v, d_out)` returning `d_q` (d,), `d_k` (n, d) and `d_v` (n, d_v). Rewrite the five lines of `attention_backward` above for a single query, yourself: some matrix products become outer products, `np.outer(a, b)`. The checker compares your answer with finite differences on queries you have not seen, and refuses an answer that calls the package's backward (`backprop.attention_backward` and the like).
""")

lesson.code(exercise=True, ko="""
def my_backward(q, k, v, d_out):
    return ...                            # p를 구한 뒤 d_v, d_p, d_s, d_q, d_k 순서로 계산해요

qk.checks.check_attention_backward(my_backward)
""", en="""
def my_backward(q, k, v, d_out):
    return ...                            # p, then d_v, d_p, d_s, d_q, d_k: (d_q, d_k, d_v)

qk.checks.check_attention_backward(my_backward)
""")

lesson.code(solution=True, ko="""
def my_backward(q, k, v, d_out):
    scale = 1 / np.sqrt(len(q))
    p = qk.softmax(k @ q * scale)         # (n,)
    d_v = np.outer(p, d_out)              # (n, d_v)
    d_p = v @ d_out                       # (n,)
    d_s = p * (d_p - p @ d_p)             # 야코비안 적용
    return d_s @ k * scale, np.outer(d_s, q) * scale, d_v

qk.checks.check_attention_backward(my_backward).as_solution()
""", en="""
def my_backward(q, k, v, d_out):
    scale = 1 / np.sqrt(len(q))
    p = qk.softmax(k @ q * scale)         # (n,)
    d_v = np.outer(p, d_out)              # (n, d_v)
    d_p = v @ d_out                       # (n,)
    d_s = p * (d_p - p @ d_p)             # the Jacobian applied
    return d_s @ k * scale, np.outer(d_s, q) * scale, d_v

qk.checks.check_attention_backward(my_backward).as_solution()
""")

lesson.md(slide="slide", ko="""
## 4. 학습시키기

한 **스텝**은 배치 하나(문장 32개)로 기울기를 구해 매개변수를 한 번 고치는 거예요. 이걸 300번 해요. 한 번에 얼마나 크게 고칠지(보폭)를 **학습률**이라고 해요. 고치는 방법은 **Adam**이에요. 기울기의 반대 방향으로 내려가되, 매개변수마다 최근 기울기의 크기를 보고 보폭을 알아서 조절해 주는 방법이에요. 학습률은 처음 20스텝 동안 0에서 0.01까지 천천히 올리고(**워밍업**: 처음부터 크게 움직이다 망가지지 않게), 그 뒤에는 코사인 곡선 모양으로 0까지 부드럽게 내려요(**코사인 감쇠**). 또 기울기가 갑자기 너무 커지지 않도록, 모든 기울기를 합친 크기(노름)가 1.0을 넘으면 1.0으로 줄여서 써요(**기울기 클리핑**). Adam의 두 상수 β₁ = 0.9, β₂ = 0.98(최근 기울기를 얼마나 오래 기억할지 정해요)은 트랜스포머를 처음 제안한 논문(Vaswani 외, 2017)과 같지만, 학습률을 바꿔 가는 일정은 그 논문과 달라요.

10스텝마다 따로 둔 문장 100개로 세 가지를 재요.
- **완전 일치**: 그리디로(매번 확률이 가장 높은 토큰 하나를 고르는 방식으로) 번역해서, 번역이 정답과 토큰 하나하나까지 똑같은 문장의 비율이에요.
- **토큰 정확도**: 디코더 입력으로 모델이 만든 번역 대신 정답 번역을 넣고(**교사 강요**, teacher forcing), 다음 토큰을 맞힌 비율이에요. 토큰 하나하나를 따로 세어요. 마지막 &lt;eos&gt;도 맞혀야 할 토큰에 넣어요(정렬 일치도는 그 행을 빼요).
- **정렬 일치도**: 똑같이 교사 강요로 넣고, 크로스 어텐션에서 한국어 토큰을 예측하는 행마다(마지막 &lt;eos&gt; 행은 빼고) 가장 큰 가중치가 정답 영어 단어에 놓였는지 봐요. 그런 행의 비율이 정렬 일치도예요. 헤드가 여럿이면 헤드 평균으로 재요.

원문 토큰은 &lt;eos&gt;까지 7~9개예요. 그러니 아무 데나 보는 행도 여덟 번에 한 번쯤은 정답 단어를 맞혀요. 이 우연 수준을 아래 셀에서 정확히 계산해요.

학습 시간은 컴퓨터마다 달라요(CPU 한 코어로 몇 초).
""", en="""
## 4. Train it

Adam for 300 steps, batches of 32 sentences. The learning rate rises to 0.01 over the first 20 steps (warm-up), then follows a cosine down to 0; the gradients' overall norm is clipped at 1.0. (Adam's constants 0.9 and 0.98 are those of Vaswani et al. 2017; the schedule is not theirs.) Every 10 steps, 100 held-out sentences measure three things:
- the **exact match**: translated greedily, the fraction of sentences right token for token;
- the **token accuracy**: with the gold translation fed to the decoder (teacher forcing), the fraction of next tokens predicted right, each token counted on its own, the final &lt;eos&gt; included (the alignment agreement leaves that row out);
- the **alignment agreement**: teacher-forced too; for each cross-attention row that predicts a Korean token (not the final &lt;eos&gt; row), is the largest weight on the gold English word? With several heads we take the heads' average.

A source has 7 to 9 tokens with &lt;eos&gt;; the cell below computes how often a row looking at a random token would hit the gold word.

The training time depends on the computer (a few seconds on one CPU core).
""")

lesson.code(slide="subslide", ko="""
bar = qk.widgets.training_progress(300)
display(bar)
run = translator.train(steps=300, seed=0, callback=bar.update)     # 인코더 셀프 어텐션 없음, 헤드 1개
print(round(run.seconds, 1))              # 걸린 시간(초)
""", en="""
bar = qk.widgets.training_progress(300)
display(bar)
# no encoder self-attention, 1 head
run = translator.train(steps=300, seed=0, callback=bar.update)
print(round(run.seconds, 1))              # seconds taken
""", ignore_output=True)

lesson.code(slide="subslide", ko="""
formed = next(r["step"] for r in run.history if r["alignment"] >= 0.8)   # 그림의 회색 점선
print(round(translator.chance_agreement(corpus.heldout[:100]), 3))   # 정렬 일치도의 우연 수준
for r in run.history[:13]:                # 스텝, 손실, 완전 일치, 토큰 정확도, 정렬 일치도
    if r["step"] % 30 == 0 or r["step"] == formed:
        print(f"{r['step']:4d}  {r['loss']:.3f}  {r['exact_match']:.2f}  "
              f"{r['token_accuracy']:.2f}  {r['alignment']:.2f}")
fig = qk.plots.plot_training_curves(run.history)
""", en="""
formed = next(r["step"] for r in run.history if r["alignment"] >= 0.8)   # the grey dotted line
print(round(translator.chance_agreement(corpus.heldout[:100]), 3))   # the agreement's chance level
for r in run.history[:13]:                # step, loss, exact match, token accuracy, alignment
    if r["step"] % 30 == 0 or r["step"] == formed:
        print(f"{r['step']:4d}  {r['loss']:.3f}  {r['exact_match']:.2f}  "
              f"{r['token_accuracy']:.2f}  {r['alignment']:.2f}")
fig = qk.plots.plot_training_curves(run.history)
""")

lesson.md(slide="subslide", ko="""
회색 세로 점선이 정렬 일치도가 처음 0.8에 닿은 스텝(위 표에서 그 스텝의 줄)이에요. 표의 손실은 직전 10스텝 동안 학습 배치에서 잰 손실의 평균이에요(스텝 0만은 아직 학습 전이라, 따로 둔 문장에서 잰 손실이에요). **토큰 정확도가 정렬 일치도보다 조금 앞서 올라가요**(스텝 30에서 0.39와 0.20). 토큰은 그 행이 정답 단어를 보기 전에도, 끝내 보지 않아도 맞을 수 있어요. 디코더가 앞서 나온 번역 토큰 같은 다른 단서로 맞히기도 하거든요. 그러니 이 학습에서 "정렬이 먼저 생긴다"고 말할 수는 없어요. 완전 일치는 둘보다 한참 뒤처지는데, 문장 하나가 맞으려면 그 문장의 토큰(&lt;eos&gt;까지 5~7개)이 모두 맞아야 하기 때문이에요. 처음 정렬 일치도(0.22)는 우연 수준(0.116)의 두 배쯤이고, 20스텝 무렵에는 오히려 그 아래로 내려갔다가 올라가요.

이 결과는 시드(`seed`, 난수의 시작값)에 따라 조금씩 달라요. 시드는 말뭉치와 따로 둘 조합도 정하니, 시드마다 자기만의 따로 둔 문장으로 평가해요. 시드 0~4로 학습하면 모두 완전 일치 100%에 닿지만, 95%를 넘는 스텝과 마지막 정렬 일치도는 시드마다 달라요(`benchmarks/bench_translator.py`가 시드마다 재요). 학습률을 두 배(0.02)로 올리면 다섯 시드 중 시드 2만 완전 일치 91%(평가에 쓰는 따로 둔 문장 100개에서)에서 멈춰요. 따로 둔 문장 200개 중 104개에서 후치사 행이 전치사가 아니라 &lt;eos&gt;를 보고, 장소만 보고 후치사를 짐작하거든요. 이 수업은 시드 0으로 고정해요. 그래야 어느 컴퓨터에서 돌려도 같은 숫자와 그림이 나올 거예요(float32 계산이라 BLAS 라이브러리에 따라 끝자리는 다를 수 있어요). 08강과 09강이 쓰는 저장된 번역기와도 같고요.

학습을 마친 모델을 따로 둔 문장 200개 전부로 평가해 봐요.
""", en="""
The grey vertical dotted line is the step where the alignment agreement first reaches 0.8 (its row is in the table). The loss column is the training loss, averaged over the batches of the last 10 steps (at step 0, before any step, it is the loss on the held-out sentences). **The token accuracy runs a little ahead of the alignment** (0.39 against 0.20 at step 30): a token can be right before its row peaks on the gold word, or without it ever doing so, from other cues such as the translation so far. So this run does not show the alignment forming first. The exact match lags both, because a sentence is right only once all its tokens (5–7 with &lt;eos&gt;) are. The untrained model's agreement (0.22) is about twice chance (0.116), and around step 20 it dips below chance before it climbs.

The result depends a little on the seed (the random numbers' starting point; it also picks the corpus and its held-out combinations, so each seed is tested on its own held-out sentences). Seeds 0 to 4 all reach 100% exact match, at different steps and with different final alignment agreements (`benchmarks/bench_translator.py` measures each seed). With twice the learning rate (0.02), one of the five seeds, seed 2, stops at 91% exact match (on the 100 held-out sentences it is evaluated on): in 104 of the 200 held-out sentences the postposition's row looks at &lt;eos&gt; instead of the preposition, and guesses the postposition from the place. The lesson pins seed 0 so that every computer should print the same numbers and pictures (float32 through another BLAS may differ in the last digits), and so that its model is the saved translator lessons 08 and 09 use.

Now measure the final model on all 200 held-out sentences.
""")

lesson.code(ko="""
heldout = translator.make_batch(corpus.heldout, vocab)
weights = run.model.cross_attention(heldout)              # (문장, 헤드, 번역 토큰, 원문 토큰)
print(weights.shape, translator.exact_match(run.model, corpus.heldout, vocab),
      round(translator.alignment_agreement(weights, corpus.heldout), 3))
# 한국어 토큰의 역할별 (정렬 일치도, 행 수)
print({role: (round(a, 3), rows) for role, (a, rows)
       in translator.alignment_by_role(weights, corpus.heldout).items()})
""", en="""
heldout = translator.make_batch(corpus.heldout, vocab)
weights = run.model.cross_attention(heldout)              # (sentences, heads, target, source)
print(weights.shape, translator.exact_match(run.model, corpus.heldout, vocab),
      round(translator.alignment_agreement(weights, corpus.heldout), 3))
# by the Korean token's role: (alignment agreement, rows)
print({role: (round(a, 3), rows) for role, (a, rows)
       in translator.alignment_by_role(weights, corpus.heldout).items()})
""")

lesson.md(slide="slide", ko="""
## 5. 위젯: 어텐션이 정렬이 되는 순간

슬라이더로 학습 스텝을 골라요. 왼쪽은 따로 둔 문장 하나의 크로스 어텐션이에요. 각 행에는 그 행이 예측하는 한국어 토큰이 적혀 있고, 각 열은 영어 토큰이에요. 주황색 테두리가 정답 정렬이에요. 오른쪽 그래프의 검은 세로선이 지금 고른 스텝이에요.

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

lesson.md(slide="subslide", ko="""
스텝 300에서도 "오리가"의 행은 "duck"이 아니라 맨 앞 "the"와 "bench"를 봐요. 그래도 번역은 맞아요. 맨 앞 "the"는 어느 문장에서나 똑같은 벡터라 아무 정보도 없는데, 이 모델은 주어 행이 아무것도 가져오지 못하면 "오리가"라고 답하도록 배웠어요. 일종의 기본값이에요. 따로 둔 문장에서 동사가 "stood"(섰다)인 문장은 그 행이 모두 &lt;eos&gt;를 봐요(위젯의 문장에는 없어요). 정답 단어를 보지 않는 행은 거의 다 이 두 경우(200문장에서 55행 중 54행)예요. 그래서 정렬 일치도가 1이 아니라 0.95에서 멈춰요. 위의 역할별 숫자도 그래요. 형용사·장소·후치사 행은 거의 모두 정답 단어를 찾지만(1.0, 0.995, 1.0), 주어 행은 91%, 동사 행은 82%만 찾아요.
""", en="""
At step 300 the row of "오리가" still does not look at "duck", but at the first "the" and "bench", and the translation is right anyway. The first "the" is the same vector in every sentence, so it tells nothing; this model learned to answer "오리가" when the subject's row brings back nothing, as a default. In the held-out sentences whose verb is "stood" (섰다; not in the widget's sentence), the verb's row always looks at &lt;eos&gt;, the same kind of default. These two defaults are 54 of the 55 rows (in 200 sentences) that miss their gold word: they are why the alignment agreement ends at 0.95 and not 1. The by-role line above shows it too: the rows of adjectives, places and postpositions almost all find their gold word (1.0, 0.995, 1.0), the subjects' rows 91% and the verbs' rows only 82%.
""")

lesson.md(slide="slide", ko="""
## 6. 어텐션은 정렬이 아니에요

이제 나머지 조건(시드, 스텝 수, 학습률)은 그대로 두고 설정을 하나씩 바꿔 다시 학습해요(하나에 몇 초). 헤드만 2개로 늘린 모델, 인코더 셀프 어텐션만 켠 모델, 둘 다 바꾼 모델이에요. 인코더 셀프 어텐션이 있으면 인코더가 단어의 내용을 자기 단어가 없는 다른 토큰("the"나 &lt;eos&gt;)으로 옮겨 담을 수 있어요. 그러면 크로스 어텐션은 단어를 그 단어의 자리가 아닌 곳에서 읽어 올 수도 있어요.

`where_attention_lands`는 한국어 토큰의 행이 가장 많이 보는 곳이 네 가지 중 어디인지 세어서 비율로 알려 줘요: 정답 단어, "the", &lt;eos&gt;, 다른 단어.
""", en="""
## 6. Attention is not alignment

Now change one setting at a time and train again with the same settings otherwise (a few seconds each): 2 heads only, encoder self-attention only, then both. With encoder self-attention, the encoder can copy a word's content into another token, one that carries no word of its own ("the" or &lt;eos&gt;), and cross-attention can then read the word somewhere other than its own position.

`where_attention_lands` sorts where each Korean token's row looks most into four kinds: its gold word, "the", &lt;eos&gt;, another word.
""")

lesson.code(slide="subslide", ko="""
runs = {(1, False): run,                  # (헤드 수, 인코더 셀프 어텐션)
        (2, False): translator.train(seed=0, n_heads=2, eval_every=300),
        (1, True): translator.train(seed=0, encoder_self_attention=True, eval_every=300),
        (2, True): translator.train(seed=0, encoder_self_attention=True, n_heads=2, eval_every=300)}
run_sa = runs[2, True]
for (heads, self_attention), r in runs.items():   # 완전 일치, 어텐션이 향한 곳, 헤드별 정렬 일치도
    w = r.model.cross_attention(heldout)
    lands = translator.where_attention_lands(w, corpus.heldout)
    per_head = [round(translator.alignment_agreement(w, corpus.heldout, h), 2)
                for h in range(heads)]
    print(heads, self_attention, translator.exact_match(r.model, corpus.heldout, vocab),
          translator.describe_landing(lands), per_head)
""", en="""
runs = {(1, False): run,                  # (heads, encoder self-attention)
        (2, False): translator.train(seed=0, n_heads=2, eval_every=300),
        (1, True): translator.train(seed=0, encoder_self_attention=True, eval_every=300),
        (2, True): translator.train(seed=0, encoder_self_attention=True, n_heads=2, eval_every=300)}
run_sa = runs[2, True]
for (heads, self_attention), r in runs.items():   # exact match, where attention lands, per head
    w = r.model.cross_attention(heldout)
    lands = translator.where_attention_lands(w, corpus.heldout)
    per_head = [round(translator.alignment_agreement(w, corpus.heldout, h), 2)
                for h in range(heads)]
    print(heads, self_attention, translator.exact_match(r.model, corpus.heldout, vocab),
          translator.describe_landing(lands), per_head)
""")

lesson.md(slide="subslide", ko="""
헤드만 늘리면 헤드 평균의 정렬은 그대로예요(0.95). 정렬을 흐트러뜨리는 건 **인코더 셀프 어텐션**이에요. 셀프 어텐션을 켠 두 모델은 한국어 토큰의 28%와 39%가 정답 단어가 아닌 곳, 주로 &lt;eos&gt;와 "the"를 봐요. 헤드 평균 때문에 생긴 일도 아니에요. 평균을 낼 것이 없는 헤드 1개짜리 모델에서도 정답 단어를 찾는 행은 72%뿐이고, 헤드 2개짜리에서는 평균(0.61)이 두 헤드 각각(0.6)보다 낮지 않아요. (헤드별 숫자만으로는 이걸 알 수 없어요. 셀프 어텐션이 없는 헤드 2개짜리 모델은 두 헤드가 일을 나눠 맡아서, 헤드 하나씩 보면 0.79와 0.76인데 평균을 내면 0.95예요.) 그래도 번역은 거의 다 맞아요(완전 일치 100%와 99%). 앞에서 본 문장(`held`)을 헤드별로 그린 아래 그림을 보세요. "숨었다"의 행이 "hid"를 보지 않아요. 헤드 0은 두 "the"를, 헤드 1은 &lt;eos&gt;를 봐요. "뒤에"의 행도 "behind"가 아니라 &lt;eos&gt;를 봐요. 그 아래 셀은 인코더 셀프 어텐션에서 원문 토큰의 행마다 "hid"에 준 가중치를 출력해요. 인코더 헤드 0에서 두 "the"의 행이 "hid"에 0.7쯤을 줘요. 인코더가 "hid"의 내용을 "the" 자리에 옮겨 담았으니, 크로스 어텐션 헤드 0은 "the"에서 동사를 읽을 수 있어요. 그런데 크로스 어텐션 헤드 1이 동사 행에서 가장 많이 보는 &lt;eos&gt;는 "hid"에서 거의 아무것도 가져오지 않았어요(인코더 헤드 0에서 0.07, 헤드 1에서 0). 가중치가 가장 큰 곳에 꼭 그 단어의 정보가 있는 건 아니에요.

그러니 어텐션 가중치는 **모델이 어느 벡터를 읽었는지**를 알려 줄 뿐, 그 벡터에 **어느 단어의 정보가 들어 있는지**는 알려 주지 않아요. 레이어를 지나며 토큰의 정보가 섞이기(token mixing) 때문이에요(Brunner 외 2020, Abnar와 Zuidema 2020). 11강에서 본 것과 닮은 이야기예요. 어텐션 가중치, 각 토큰이 실제로 보탠 몫, 그리고 설명은 서로 다른 거예요.
""", en="""
More heads alone leave the heads' average aligned (0.95); what scatters it is **encoder self-attention**. With it, 28% and 39% of the Korean tokens look somewhere other than their gold word, mostly &lt;eos&gt; and "the". This is not an artefact of averaging the heads: with one head, where nothing is averaged, only 72% of the rows find their gold word, and with two heads the average (0.61) is no worse than either head (0.6 each). (Per-head numbers alone could not show this: without self-attention the two heads share the work, each scoring only 0.79 and 0.76, yet their average is 0.95.) Yet nearly every translation is right (100% and 99% exact match). Look at the per-head maps of the sentence from before (`held`): the row of "숨었다" does not look at "hid": head 0 looks at the two "the"s, head 1 at &lt;eos&gt;. The row of "뒤에" looks at &lt;eos&gt; too, not "behind". The cell after them prints, for each source token's row of the encoder's self-attention, its weight on "hid": in encoder head 0, both "the" rows give "hid" about 0.7. The encoder copied "hid"'s content into the "the"s, so cross-attention head 0 can read the verb there. But the &lt;eos&gt; that cross-attention head 1 looks at most took almost nothing from "hid" (0.07 in encoder head 0, 0 in encoder head 1). The largest weight is not always where the word's information is.

So attention weights tell **which vector the model read**, not **which word's information that vector holds**, because layers mix the tokens' information (token mixing: Brunner et al. 2020; Abnar & Zuidema 2020). It is a cousin of lesson 11's point that attention weights, what each token contributes, and an explanation are three different things.
""")

lesson.code(slide="subslide", ko="""
# (헤드, 번역 토큰, 원문 토큰)
w0 = run_sa.model.cross_attention(translator.make_batch([held], vocab))[0]
fig = qk.plots.plot_alignment_maps(w0, [*held.korean, "<eos>"], [*held.english, "<eos>"],
                                   held.alignment)
""", en="""
# (heads, target, source)
w0 = run_sa.model.cross_attention(translator.make_batch([held], vocab))[0]
fig = qk.plots.plot_alignment_maps(w0, [*held.korean, "<eos>"], [*held.english, "<eos>"],
                                   held.alignment)
""")

lesson.code(ko="""
_, cache_sa = run_sa.model.forward(translator.make_batch([held], vocab))
encoder_self = cache_sa["enc.self"][5][0]       # (헤드, 원문 토큰, 원문 토큰)
verb = held.alignment[-1]                        # 원문에서 동사의 위치
print("→", held.english[verb], [*held.english, "<eos>"])
for h in range(len(encoder_self)):               # 헤드마다: 원문 토큰의 행이 동사에 준 가중치
    print(h, encoder_self[h, :, verb].round(2))
""", en="""
_, cache_sa = run_sa.model.forward(translator.make_batch([held], vocab))
encoder_self = cache_sa["enc.self"][5][0]       # (heads, source, source)
verb = held.alignment[-1]                        # the verb's position in the source
print("→", held.english[verb], [*held.english, "<eos>"])
for h in range(len(encoder_self)):               # per head: each source row's weight on the verb
    print(h, encoder_self[h, :, verb].round(2))
""")

lesson.md(slide="slide", ko="""
## 직접 해보기: 새 문장의 동사는 어디를 볼까요

헤드 2개에 인코더 셀프 어텐션을 켠 모델(`run_sa.model`)에 새 문장 "the white rabbit hid behind the small bench"(하얀 토끼가 작은 벤치 뒤에 숨었다)를 넣어요. 이 문장의 어텐션 그림은 아직 한 번도 보지 않았어요. 한국어 동사 "숨었다"를 예측하는 행(두 헤드의 평균)은 원문 토큰 중 무엇에 가장 큰 가중치를 둘까요? 6절에서 본 걸 떠올려 먼저 예측하고, `my_word`에 원문 토큰 하나(영어 단어나 "&lt;eos&gt;")를 따옴표로 감싸 적은 뒤 검사기로 확인해 보세요. 틀리면 검사기는 답을 알려 주지 않아요.
""", en="""
## Try it: where does a new sentence's verb look?

Give the 2-head model with encoder self-attention (`run_sa.model`) a new sentence, "the white rabbit hid behind the small bench" (하얀 토끼가 작은 벤치 뒤에 숨었다), whose attention you have not seen. The row that predicts the Korean verb "숨었다" (the two heads averaged): which source token gets its largest weight? Predict it from what section 6 showed, write one source token (an English word or "&lt;eos&gt;") in quotes in `my_word`, then check. A wrong guess is not told the answer.
""")

lesson.code(exercise=True, ko="""
new_pair = toy_corpus.build_sentence("rabbit", "hid", "behind", "bench", "white", "small")
my_word = ...                             # 원문 토큰 하나, 예: "the"
qk.checks.check_verb_attention(my_word, run_sa.model, new_pair)
""", en="""
new_pair = toy_corpus.build_sentence("rabbit", "hid", "behind", "bench", "white", "small")
my_word = ...                             # one source token, e.g. "the"
qk.checks.check_verb_attention(my_word, run_sa.model, new_pair)
""")

lesson.code(solution=True, ko="""
my_word = "<eos>"                         # "hid"가 아니에요: 헤드 1이 <eos>를 강하게 봐서 평균도 <eos>에서 가장 커요
qk.checks.check_verb_attention(my_word, run_sa.model, new_pair).as_solution()
""", en="""
# not "hid": head 1 looks hard at <eos>, so the mean peaks there
my_word = "<eos>"
qk.checks.check_verb_attention(my_word, run_sa.model, new_pair).as_solution()
""")

lesson.md(slide="slide", ko="""
## 7. 역전파는 무엇을 보관해야 하나요

3절의 `attention_backward`에는 순전파에서 만든 어텐션 가중치 P가 필요해요. 그래서 일반 역전파를 쓰는 학습은 헤드마다, 레이어마다 (n, n) 크기의 P를 역전파 때까지 메모리에 남겨 둬요. 13강에서 본 FlashAttention은 순전파에서도 P를 통째로 만들지 않았죠. 그럼 역전파는요? 소프트맥스는 p = exp(s) / Σ exp(s)이니, 분모를 로그로 적은 L = log Σ exp(s)만 있으면 p = exp(s − L)로 언제든 다시 구할 수 있어요. 이 L을 **로그-합-지수**(log-sum-exp)라고 불러요. FlashAttention-2는 출력과 함께 행마다 이 L을 하나씩, 모두 n개만 남겨 두고(출력은 야코비안의 p·d_p 항인 D = rowsum(d_out ⊙ O)를 P 없이 구하는 데 써요. FlashAttention-1은 L 대신 행마다 최댓값과 합, 두 개를 남겼어요), 역전파에서 키 블록마다 P = exp(s − L)을 **다시 계산**해요. 기울기는 같아요.
""", en="""
## 7. What does the backward pass have to keep?

Section 3's `attention_backward` reads the weights P made by the forward pass. So plain training keeps an (n, n) P per head and per layer in memory until the backward pass. FlashAttention, as lesson 13 showed, never builds the whole P in the forward pass; what about the backward? Since p = exp(s) / Σ exp(s), the row's **log-sum-exp** L = log Σ exp(s) is enough to rebuild p = exp(s − L). FlashAttention-2 keeps, besides the output (which gives D = rowsum(d_out ⊙ O), the Jacobian's p·d_p term, without P), only this L per row (n numbers; FlashAttention-1 kept two per row, the max and the sum) and **recomputes** P = exp(s − L) block by block of keys in the backward. The gradients are the same.
""")

lesson.code(ko="""
rng = np.random.default_rng(0)
q, k, v, d_out = (rng.standard_normal((512, 64)) for _ in range(4))
out, p, lse = attention_backward.forward_with_logsumexp(q, k, v)
plain = attention_backward.plain_backward(d_out, q, k, v, p)
again = attention_backward.recompute_backward(d_out, q, k, v, out, lse, block_size=64)
errors = [np.linalg.norm(a - b) / np.linalg.norm(a) for a, b in zip(plain, again)]
print([f"{e:.0e}" for e in errors], p.shape, lse.shape)   # d_q, d_k, d_v의 상대 오차
""", en="""
rng = np.random.default_rng(0)
q, k, v, d_out = (rng.standard_normal((512, 64)) for _ in range(4))
out, p, lse = attention_backward.forward_with_logsumexp(q, k, v)
plain = attention_backward.plain_backward(d_out, q, k, v, p)
again = attention_backward.recompute_backward(d_out, q, k, v, out, lse, block_size=64)
errors = [np.linalg.norm(a - b) / np.linalg.norm(a) for a, b in zip(plain, again)]
print([f"{e:.0e}" for e in errors], p.shape, lse.shape)   # relative errors of d_q, d_k, d_v
""")

lesson.md(slide="subslide", ko="""
헤드 하나(d = 64, float32)에서 n을 늘려 가며 세 가지를 봐요. 역전파 때까지 남겨 두는 메모리(표와 그림의 "보관". 두 역전파 모두 q, k, v를 읽고, 다시 계산하는 역전파는 출력 O도 읽어요. 일반 학습도 O는 W_o의 역전파에 쓰려고 남겨 두니, 두 방법 모두 q, k, v와 O를 세요), 역전파 도중 남겨 둔 것 말고 더 쓴 메모리의 최댓값(파이썬의 `tracemalloc`으로 재요), 역전파의 FLOPs(부동소수점 연산 수)예요. FLOPs는 직접 재지 않고 식으로 계산해요. 일반 역전파는 행렬 곱이 4번(d_v, d_P, d_q, d_k)인데, 다시 계산하는 역전파는 P를 다시 만들려고 q·kᵀ를 한 번 더 하니 FLOPs가 일반 역전파의 5/4배(1.25배)예요(지수 함수 계산은 세지 않아요). 메모리는 n = 1024까지 재고(이 노트북의 메모리를 작게 두려고요), 그 뒤는 같은 것을 세는 식 `attention_backward.kept_bytes`로 어림해요. float32 하나가 4바이트라서 P는 4·n² 바이트예요. MiB는 2²⁰ 바이트예요. 여기서 다시 계산하는 역전파는 키만 블록으로 나누고 쿼리는 n개를 한꺼번에 다뤄서, 최대 메모리가 n에 비례해 늘어요. FlashAttention은 쿼리도 블록으로 나눠요.
""", en="""
One head (d = 64, float32) as n grows: the bytes kept for the backward (both backwards read q, k and v, and the recomputing one reads the output O too; plain training keeps O anyway, as the input of W_o's backward, so both counts include q, k, v and O), the peak memory allocated during the backward on top of what was kept (measured with `tracemalloc`), and the backward's FLOPs. The FLOPs are counted by formula, not measured: the plain backward's 4 matrix products (d_v, d_P, d_q, d_k) plus q·kᵀ once more make the recomputing backward's FLOPs 5/4 of the plain one's (the exponentials are not counted). Memory is measured up to n = 1024 (to keep this notebook's memory small); beyond, `attention_backward.kept_bytes` extrapolates the same quantities by formula. This numpy recompute tiles the keys only and takes all n queries at once, so its peak grows with n; FlashAttention tiles the queries too.
""")

lesson.code(ko="""
costs = attention_backward.measure_backward([128, 256, 512, 1024])
mib = 2**20
# n, 보관(일반), 보관(다시 계산), 최대(일반), 최대(다시 계산) (여기까지 MiB), FLOPs 비율
for i, n in enumerate(costs.lengths):
    print(f"{n:5d}  {costs.kept_plain[i] / mib:6.2f}  {costs.kept_recompute[i] / mib:5.2f}  "
          f"{costs.peak_plain[i] / mib:6.2f}  {costs.peak_recompute[i] / mib:5.2f}  "
          f"{costs.flops_recompute[i] / costs.flops_plain[i]:.2f}")
for n in (4096, 32768):                   # 어림: 보관(일반), 보관(다시 계산)
    print(f"{n:5d}  {attention_backward.kept_bytes(n, 64, False) / mib:8.0f}  "
          f"{attention_backward.kept_bytes(n, 64, True) / mib:5.2f}")
""", en="""
costs = attention_backward.measure_backward([128, 256, 512, 1024])
mib = 2**20
# n, kept (plain), kept (recompute), peak (plain), peak (recompute) in MiB, FLOPs ratio
for i, n in enumerate(costs.lengths):
    print(f"{n:5d}  {costs.kept_plain[i] / mib:6.2f}  {costs.kept_recompute[i] / mib:5.2f}  "
          f"{costs.peak_plain[i] / mib:6.2f}  {costs.peak_recompute[i] / mib:5.2f}  "
          f"{costs.flops_recompute[i] / costs.flops_plain[i]:.2f}")
for n in (4096, 32768):                   # extrapolated: kept (plain), kept (recompute)
    print(f"{n:5d}  {attention_backward.kept_bytes(n, 64, False) / mib:8.0f}  "
          f"{attention_backward.kept_bytes(n, 64, True) / mib:5.2f}")
""")

lesson.code("""
ax = qk.plots.plot_backward_memory(costs)
""", slide="subslide")

lesson.md(slide="subslide", ko="""
일반 역전파는 n이 두 배가 되면 남겨 두는 메모리가 네 배 가까이 돼요(n = 32768이면 헤드 하나에 4 GiB). 다시 계산하는 역전파는 두 배로만 늘어요. 역전파의 행렬 곱을 25% 더 하는 대신, q, k, v와 출력 말고 더 남겨 두는 메모리가 n²에 비례하던 것에서 n에 비례하게 줄어요. q, k, v와 출력(모두 4·n·d개)은 두 방법 모두 남기니, 남겨 두는 전체 메모리는 n/(4d)배쯤 차이 나요. n = 1024에서 약 5분의 1, n = 32768이면 130분의 1쯤으로 줄어요. GPU에서는 메모리를 읽고 쓰는 시간이 계산보다 오래 걸려서, FlashAttention처럼 여러 단계를 커널 하나로 합쳐 블록마다 계산하는 방식은 오히려 더 빠르기도 해요.
""", en="""
In the plain backward, twice n means nearly four times the memory kept (at n = 32768, 4 GiB for one head). In the recomputing backward it only doubles. 25% more of the backward's matrix products make the extra memory, beyond q, k, v and the output, fall from n² numbers to n. Both keep q, k, v and the output (4·n·d numbers), so the total kept shrinks by about n/(4d): about 5× at n = 1024, about 130× at n = 32768. On a GPU, moving memory costs more than arithmetic, so FlashAttention's fused, tiled kernel is often faster too.
""")

lesson.md(slide="slide", ko="""
## 8. 위젯: 직접 만든 문장 번역하기

드롭다운으로 영어 문장을 만들면 학습한 모델이 그리디로 번역하고, 모델이 만든 번역을 디코더에 다시 넣었을 때의 크로스 어텐션을 보여 줘요. 번역이 맞으면 정답 정렬에 테두리가 그려져요.

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

- `"a"`: 학습 손실이 처음에는 빠르게 내려가지만, 그 뒤로는 끝날 때까지 정상 학습(0.01 아래)보다 훨씬 높은 곳(3 근처)에 머물러요. 한 번에 고치는 양(학습률)이 너무 커서 더 내려가지 못했어요.
- `"b"`: 학습 손실은 0 가까이 내려갔는데 따로 둔 문장은 틀려요. 문장을 외웠어요.
- `"c"`: 아무 문제 없이 배웠어요.
""", en="""
## Try it: break it

Break the training on purpose and read the cause from the curves. The cell below trains for 150 steps with a very large learning rate (`lr=0.3`). Change the setting and run it again if you like: for instance remove `lr=0.3` and pass `n_train=20`, very few training sentences. Compare the curves with the normal run of section 4, choose what happened to `broken`, and write it in `my_diagnosis`:

- `"a"`: the training loss drops quickly at first, then stays near 3, far above the normal run's 0.01, for the rest of the run; the steps were too large to go further.
- `"b"`: the training loss went near 0 but held-out sentences are wrong; it memorised the sentences.
- `"c"`: it learned without trouble.
""")

lesson.code(ko="""
broken = translator.train(steps=150, lr=0.3)     # 설정을 바꿔 다시 돌려 봐도 돼요
fig = qk.plots.plot_training_curves(broken.history)
""", en="""
broken = translator.train(steps=150, lr=0.3)     # change the setting and run it again
fig = qk.plots.plot_training_curves(broken.history)
""")

lesson.code(slide="subslide", exercise=True, ko="""
my_diagnosis = ...                        # "a", "b", "c" 중 하나
qk.checks.check_break_it(broken, my_diagnosis)
""", en="""
my_diagnosis = ...                        # one of "a", "b", "c"
qk.checks.check_break_it(broken, my_diagnosis)
""")

lesson.code(solution=True, ko="""
my_diagnosis = "a"                        # lr = 0.3: 손실이 3 근처에 머물러요. n_train = 20이면 "b"
qk.checks.check_break_it(broken, my_diagnosis).as_solution()
""", en="""
# lr = 0.3: the loss stays near 3. With n_train = 20: "b"
my_diagnosis = "a"
qk.checks.check_break_it(broken, my_diagnosis).as_solution()
""")

lesson.md(slide="slide", ko="""
## 정리

- W_Q, W_K, W_V는 손실의 기울기를 따라 내려가며 학습돼요. 기울기는 연산마다 따로 짠 역전파를 연쇄 법칙(합성함수의 미분)으로 차례로 이어 붙여 구하고, 유한 차분으로 맞는지 검사할 수 있어요. 어텐션의 역전파 가운데에는 03강의 소프트맥스 야코비안이 있어요.
- 작은 번역기는 몇 초만 학습해도 학습에 없던 조합까지 번역해요(시드 0~4 모두 그래요. 학습률을 두 배로 올리면 다섯 시드 중 하나, 시드 2는 91%에서 멈춰 버려요). 크로스 어텐션은 고르게 퍼진 상태에서 단어 정렬로 바뀌고, 토큰 정확도가 정렬 일치도보다 조금 앞서 올라가요. 완전 일치는 문장의 모든 토큰이 맞아야 해서 뒤처져요. 어순 변화도 어텐션이 따라가요. 전치사가 후치사가 되는 건 모든 문장에서, 동사가 끝으로 가는 건 82%의 문장에서 따라가요("stood"의 행은 &lt;eos&gt;를 봐요, 5절).
- 어텐션은 정렬이 아니에요. 인코더 셀프 어텐션이 내용을 자기 단어가 없는 다른 토큰으로 옮기면(정보 섞임), 번역은 맞는데 어텐션은 다른 자리를 봐요.
- 역전파에는 P가 필요해요. 일반 역전파는 (n, n) 크기의 P를 통째로 보관하고, FlashAttention-2는 출력과 행마다 로그-합-지수만 보관하고 P를 다시 계산해요. 행렬 곱은 5/4배, q, k, v와 출력 말고 더 남기는 메모리는 n²에서 n으로 줄어요.

08강과 09강도 이 번역기를 써요. `translator.load_trained()`가 미리 학습해 저장해 둔(`make train`) 같은 매개변수를 불러오고, `translator.to_tiny_transformer`가 그걸 09강의 `TinyTransformer`에 넣어요.

**다음 강**: [15. 인덕션 헤드](15_induction_heads.ipynb). 어텐션만 있는 디코더가 복사를 배우는 순간을 봐요. [10. 복습](10_review.ipynb)으로 돌아가도 돼요.
""", en="""
## Key takeaways

- W_Q, W_K and W_V are learned by following the loss's gradient downhill. The gradient chains each op's written-out backward, and finite differences check it. At the heart of attention's backward is lesson 03's softmax Jacobian.
- The small translator learns in seconds to translate combinations it never saw (seeds 0 to 4 alike; with twice the learning rate one of the five, seed 2, stalls at 91%). Its cross-attention goes from spread out to the word alignment; the per-token accuracy runs a little ahead of the alignment agreement, and the exact match, which needs every token of a sentence, comes last. It follows the reorderings too: the preposition → postposition move in every sentence, the verb's move to the end in 82% (the rows of "stood" read &lt;eos&gt;, section 5).
- Attention is not alignment: when encoder self-attention copies content into another token, one with no word of its own (token mixing), the translation is right while attention looks elsewhere.
- The backward needs P. Plain training keeps the whole (n, n) P; FlashAttention-2 keeps the output and one log-sum-exp per row and recomputes P: 5/4 of the matrix products, the extra memory beyond q, k, v and the output from n² down to n.

Lessons 08 and 09 use this translator: `translator.load_trained()` loads the same parameters, trained in advance and saved (`make train`), and `translator.to_tiny_transformer` puts them into lesson 09's `TinyTransformer`.

**Next lesson**: [15. Induction heads](15_induction_heads.ipynb): watch an attention-only decoder learn to copy. Or go back to [10. Review](10_review.ipynb).
""")
