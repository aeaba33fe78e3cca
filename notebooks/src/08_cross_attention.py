# Lesson 08's source: make notebooks LESSON=08 builds notebooks/{ko,en}/08_cross_attention.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 08. 크로스 어텐션: 디코더가 인코더에게 묻기
#
# **이번 시간의 목표**
# - 크로스 어텐션(인코더-디코더 어텐션)에서 Q는 디코더에서, K와 V는 인코더의 출력에서 온다는 걸 코드로 확인해요.
# - 가중치의 모양이 (번역 토큰 수, 원문 토큰 수)라는 걸 예측하고 확인해요.
# - 정렬(alignment) 그림에서 번역 단어마다 원문의 어느 단어를 보는지 읽어요.
# - 인코더의 K와 V가 디코더의 스텝과 상관없다는 걸 보고, 한 번만 계산하면 된다는 걸 알아요.
#
# **수업 시간**: 약 35분

# %% [markdown] lang="en"
# # 08. Cross-attention: the decoder asks the encoder
#
# **Goals for this lesson**
# - Confirm in code that in cross-attention (encoder-decoder attention) Q comes from the decoder, and K and V from the encoder's output.
# - Predict, then check, that the weights have shape (target tokens, source tokens).
# - Read the alignment picture: which source word each target word looks at.
# - See that the encoder's K and V do not depend on the decoder's step, so they need computing only once.
#
# **Class time**: about 35 minutes

# %% slide="skip"
import numpy as np
import qkv_helpers as qk
from qkv_helpers import translator

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=2, suppress=True)
tr = qk.translation_example()             # "The cat sat on the mat." → "고양이가 매트 위에 앉았다."
# en: the same pair, as lesson 14's trained translator sees it
trained = translator.trained_translation_example()   # ko: 같은 문장, 14강에서 학습시킬 번역기의 크로스 어텐션

# %% [markdown] lang="ko" slide="slide"
# ## 번역기의 두 부분
#
# 번역을 하는 트랜스포머를 생각해 봐요. **인코더**는 원문 "The cat sat on the mat."을 읽고(06강), 토큰마다 문맥 벡터를 만들어요. **디코더**는 번역문 "고양이가 매트 위에 앉았다."를 한 토큰씩 써요(07강).
#
# 그런데 디코더가 자기가 쓴 토큰만 보면 번역을 할 수 없어요. 원문을 봐야죠. 그 통로가 **크로스 어텐션**이에요. 디코더의 각 토큰이 쿼리가 되어 원문의 토큰들에게 "지금 나한테 필요한 건 누구지?"라고 물어요.

# %% [markdown] lang="en"
# ## The two halves of a translator
#
# Picture a Transformer that translates. The **encoder** reads the source, "The cat sat on the mat." (lesson 06), and makes a contextual vector per token. The **decoder** writes the translation, "고양이가 매트 위에 앉았다.", one token at a time (lesson 07).
#
# But a decoder that looks only at its own tokens cannot translate: it has to look at the source. **Cross-attention** is that channel. Each decoder token becomes a query and asks the source tokens: "which of you do I need now?"

# %%
print(tr.source_tokens, len(tr.source_tokens))
print(tr.target_tokens, len(tr.target_tokens))

# %% [markdown] lang="ko" slide="slide"
# ## Q는 디코더에서, K와 V는 인코더에서
#
# 셀프 어텐션과 계산은 똑같아요. 다른 건 **재료의 출처**뿐이에요.
#
# - Q = (디코더의 상태)·W_Q: 번역 토큰마다 하나, `tr.target_x`는 (5, 8)
# - K = (인코더의 출력)·W_K, V = (인코더의 출력)·W_V: 원문 토큰마다 하나, `tr.source_x`는 (7, 8)
#
# 그래서 쿼리는 5개, 키와 밸류는 7개예요. 쿼리 수와 키 수가 달라도 괜찮아요. 내적을 하려면 **차원 d_k**만 같으면 되니까요. 그리고 원문은 처음부터 다 주어져 있으니 크로스 어텐션에는 인과 마스크가 없어요.

# %% [markdown] lang="en"
# ## Q from the decoder, K and V from the encoder
#
# The computation is the same as self-attention; only **where the inputs come from** differs.
#
# - Q = (decoder states)·W_Q: one per target token; `tr.target_x` is (5, 8)
# - K = (encoder output)·W_K and V = (encoder output)·W_V: one per source token; `tr.source_x` is (7, 8)
#
# So there are 5 queries and 7 keys and values. Different counts are fine: a dot product needs only the **dimension d_k** to match. And the whole source is given from the start, so cross-attention uses no causal mask.

# %%
# en: decoder (target tokens, d_model), encoder (source tokens, d_model)
print(tr.target_x.shape, tr.source_x.shape)   # ko: 디코더 (번역 토큰, d_model), 인코더 (원문 토큰, d_model)
print(tr.q.shape, tr.k.shape, tr.v.shape)     # ko: Q는 5개, K와 V는 7개; 차원은 모두 d_k = 4
                                              # en: 5 queries, 7 keys and values, all with d_k = 4

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 가중치의 모양 예측하기
#
# 계산하기 전에 먼저 예측해 봐요. 같은 번역기(`trained`, 헤드 1개, d_k = 32)에 이번에는 원문 "the big cat sat on the red mat"을 넣는다고 해 봐요. 단어 8개에 끝 토큰 &lt;eos&gt;까지 **원문 9토큰**이에요. 디코더는 지금까지 **토큰 6개**(&lt;bos&gt;와 한국어 5개)를 읽었어요. 이때 크로스 어텐션 가중치 softmax(Q·Kᵀ/√d_k)의 모양은 무엇일까요? Q와 K가 각각 어느 쪽에서 오는지, 몇 행인지 떠올려 보세요. 답을 `(행, 열)` 튜플로 `my_shape`에 적어 보세요.

# %% [markdown] lang="en"
# ## Try it: predict the shape of the weights
#
# Predict before computing. Say the same translator (`trained`: one head, d_k = 32) now gets the source "the big cat sat on the red mat": 8 words and the end token &lt;eos&gt;, **9 source tokens**. So far the decoder has read **6 tokens** (&lt;bos&gt; and 5 Korean ones). What is the shape of the cross-attention weights softmax(Q·Kᵀ/√d_k)? Think of where Q and K come from, and how many rows each has. Write your answer in `my_shape` as a tuple `(rows, columns)`.

# %% exercise=true
my_shape = ...   # ko: (행, 열)
                 # en: (rows, columns)
qk.checks.check_cross_shape(my_shape, trained, n_source=9, n_target=6)

# %% solution=true
my_shape = (6, 9)   # ko: (디코더 토큰 = 쿼리, 원문 토큰 = 키): (6, 32)·(32, 9) → (6, 9)
                    # en: (decoder tokens = queries, source tokens = keys): (6, 32)·(32, 9) → (6, 9)
qk.checks.check_cross_shape(my_shape, trained, n_source=9, n_target=6).as_solution()

# %% [markdown] lang="ko" slide="subslide"
# 이제 실제로 계산해서 확인해요. 가중치는 (번역 토큰 수, 원문 토큰 수) = (5, 7)이고, 출력은 번역 토큰마다 문맥 벡터 하나씩 (5, 4)예요. 각 출력 행은 **원문**의 밸류를 섞어 만든 거예요. 디코더의 토큰이 원문의 정보를 가져오는 거죠.

# %% [markdown] lang="en"
# Now compute it and check. The weights are (target tokens, source tokens) = (5, 7), and the output is one contextual vector per target token, (5, 4). Each output row is a mix of the **source's** values: the decoder token fetches information from the source.

# %%
cross = qk.scaled_dot_product_attention(tr.q, tr.k, tr.v)
print(cross.weights.shape, cross.output.shape)

# %% [markdown] lang="ko" slide="slide"
# ## 정렬 그림: 누가 누구를 보나요
#
# 행은 번역 토큰(디코더), 열은 원문 토큰(인코더)이에요. 칸이 밝을수록 그 번역 토큰이 많이 참고하는 원문 단어예요. 고양이가→cat, 매트→mat, 위에→on, 앉았다→sat처럼 뜻이 같은 단어끼리 짝지어지고, 마침표는 마침표(.→.)와 짝지어져요.
#
# 두 언어의 어순이 다르다는 것도 보세요. 영어 "cat sat on the mat"은 동사 "sat"이 주어 바로 뒤에 오지만, 한국어 "고양이가 매트 위에 앉았다"는 동사 "앉았다"가 맨 끝에 와요. 한국어는 동사가 끝에 오는 SOV 어순이라, "앉았다"는 번역문의 4번째지만 원문의 3번째 단어 "sat"을 봐요. 크로스 어텐션은 위치가 아니라 내용으로 짝을 찾으니 어순이 달라도 괜찮아요.
#
# 이 숫자는 손으로 만든 거예요. 학습된 번역 모델에서 보고 싶은 그림, **우리가 바라는 그림**이에요. 바로 다음에 진짜로 학습된 그림과 나란히 봐요.

# %% [markdown] lang="en"
# ## The alignment picture: who looks at whom
#
# Rows are target tokens (decoder), columns source tokens (encoder). The brighter a cell, the more that target token draws on that source word: 고양이가→cat, 매트→mat, 위에→on, 앉았다→sat, .→. Words with the same meaning pair up.
#
# Notice the word order differs. In English "cat sat on the mat" the verb "sat" follows the subject; in Korean "고양이가 매트 위에 앉았다" the verb "앉았다" comes last. Korean puts the verb at the end (SOV order), so "앉았다" is 4th in the translation but looks at "sat", 3rd in the source. Cross-attention pairs by content, not position, so a different word order is no problem.
#
# These numbers are made by hand: the picture we would like a trained translator to show, **the picture we hope for**. Next, the one a translator actually learned.

# %% slide="subslide"
ax = qk.plots.plot_cross_attention(cross.weights, tr.target_tokens, tr.source_tokens)
print([tr.source_tokens[j] for j in cross.weights.argmax(axis=1)])

# %% [markdown] lang="ko" slide="slide"
# ## 학습된 번역기가 찾은 정렬
#
# 14강에서는 작은 영어→한국어 번역기를 numpy로 몇 초 만에 학습시켜요. 그 번역기에 같은 문장을 넣었을 때의 크로스 어텐션이에요(소문자에 마침표 없이, 원문 끝에 끝 토큰 &lt;eos&gt;가 붙어요). 각 행에는 그 행이 **예측하는** 한국어 토큰이 적혀 있어요. 번역기는 학습 때 고양이와 매트가 함께 나오는 문장을 한 번도 보지 않았고, 누구도 정렬을 알려 주지 않았어요. 번역 손실을 줄이려면 그곳을 봐야 해서 스스로 배운 거예요.

# %% [markdown] lang="en"
# ## The alignment a trained translator found
#
# Lesson 14 trains a small English→Korean translator in numpy, in a few seconds. Here is its cross-attention for the same sentence (lower case, no full stop, and the end token &lt;eos&gt; after the source). Each row is labelled with the Korean token it **predicts**. The translator never saw a cat and a mat together in training, and nobody told it the alignment: it learned to look there because that lowers its translation loss.

# %% slide="subslide"
learned = qk.scaled_dot_product_attention(trained.q, trained.k, trained.v)
ax = qk.plots.plot_cross_attention(learned.weights, trained.target_tokens, trained.source_tokens)
print([trained.source_tokens[j] for j in learned.weights.argmax(axis=1)])

# %% [markdown] lang="ko"
# 학습된 번역기도 같은 짝을 찾았어요: 고양이가→cat, 매트→mat, 위에→on, 앉았다→sat. 손으로 만든 그림보다 훨씬 뚜렷해서, 행마다 가중치가 거의 한 단어에 몰려 있어요. 어떻게 이렇게 되는지는 14강에서 학습 스텝마다 지켜봐요.

# %% [markdown] lang="en"
# The trained translator found the same pairs: 고양이가→cat, 매트→mat, 위에→on, 앉았다→sat, and far more sharply than the hand-made picture: each row puts nearly all its weight on one word. Lesson 14 watches this happen, training step by training step.

# %% [markdown] lang="ko" slide="slide"
# ## 위젯: 디코더 토큰을 골라 보세요
#
# 슬라이더로 번역 토큰 하나를 고르면, 왼쪽 정렬 그림에서 그 행이 표시되고 오른쪽에 그 토큰의 가중치가 원문 토큰별 막대로 나와요.
#
# **해 볼 것**
# - "고양이가"에서 시작해 "매트", "위에", "앉았다"로 바꿔 보세요.
# - "앉았다"의 막대를 자세히 보세요. 가장 큰 건 "sat"이지만 두 번째로 큰 막대는 어디인가요?
#
# **눈여겨볼 것**
# - 막대는 항상 원문 토큰 7개 위에 있어요. 쿼리는 번역 쪽에서 오지만, 가중치를 나눠 주는 대상은 원문이에요.
# - 가려진 막대가 없어요. 크로스 어텐션에는 인과 마스크가 없으니까요.
# - "앉았다"는 "sat" 다음으로 "on"을 봐요. "sat on"처럼 동사와 붙어 다니는 단어의 정보도 조금 가져와요.

# %% [markdown] lang="en"
# ## Widget: pick a decoder token
#
# Pick a target token with the slider: its row is outlined in the alignment picture on the left, and its weights are drawn as bars over the source tokens on the right.
#
# **Try this**
# - Start with "고양이가", then switch to "매트", "위에" and "앉았다".
# - Look closely at "앉았다": its largest bar is "sat", but where is the second largest?
#
# **Notice**
# - The bars always stand on the 7 source tokens: the query comes from the translation, but the weights are shared out over the source.
# - No bar is hidden: cross-attention has no causal mask.
# - After "sat", "앉았다" looks most at "on": it also takes a little from a word that goes with the verb, as in "sat on".

# %% slide="subslide"
qk.widgets.cross_attention_explorer()

# %% [markdown] lang="ko" slide="slide"
# ## 인코더의 K와 V는 디코더 스텝과 상관없어요
#
# 디코더는 번역문을 한 토큰씩 써요. 스텝 1에는 "고양이가"만, 스텝 2에는 "고양이가 매트"까지 있죠. 스텝마다 크로스 어텐션을 계산하면 무엇이 바뀌고 무엇이 그대로일까요?
#
# - 쿼리는 디코더의 토큰에서 오니까 스텝마다 하나씩 늘어요.
# - 키와 밸류는 인코더의 출력 `source_x`에서만 와요. 원문은 번역하는 동안 그대로니까, **모든 스텝에서 똑같아야** 해요.
#
# `cross_attention_at_step(tr, step)`은 디코더가 토큰 `step`개를 썼을 때의 크로스 어텐션을 계산해요. 스텝 1~5의 K, V를 스텝 1의 것과 비교해 봐요.

# %% [markdown] lang="en"
# ## The encoder's K and V do not depend on the decoder step
#
# The decoder writes the translation one token at a time: at step 1 there is only "고양이가", at step 2 "고양이가 매트", and so on. Computing cross-attention at each step, what changes and what stays?
#
# - The queries come from the decoder's tokens, so there is one more at each step.
# - The keys and values come from the encoder's output `source_x` only. The source does not change while we translate, so they **must be identical at every step**.
#
# `cross_attention_at_step(tr, step)` computes cross-attention when the decoder has written `step` tokens. Let's compare each step's K and V with step 1's.

# %%
steps = [qk.encoder_decoder.cross_attention_at_step(tr, step) for step in range(1, 6)]
for s in steps:                           # ko: 스텝, Q의 모양, K의 모양, K와 V가 스텝 1과 같은가
                                          # en: step, Q's shape, K's shape, K and V equal to step 1's?
    same = np.array_equal(s.k, steps[0].k) and np.array_equal(s.v, steps[0].v)
    print(s.step, s.q.shape, s.k.shape, same)

# %% [markdown] lang="ko" slide="subslide"
# Q는 (1, 4)에서 (5, 4)로 자라지만 K는 언제나 (7, 4)이고 값도 똑같아요. 그러니 인코더의 K와 V는 **원문 문장마다 한 번만** 계산해 두고, 디코더의 모든 스텝과 모든 번역 토큰이 같이 쓰면 돼요. 스텝마다 새로 계산하면 같은 숫자를 다섯 번 만드는 셈이에요.
#
# 키와 밸류가 스텝마다 똑같으니, 먼저 쓴 토큰의 가중치 행도 스텝이 바뀌어도 그대로예요. 스텝 3에서 계산한 세 행은 전체를 한 번에 계산한 가중치의 앞 세 행과 같아요.
#
# 09강에서는 같은 아이디어를 07강의 셀프 어텐션 K, V에도 써요. 그게 **KV 캐시**예요. 캐시로 얼마나 빨라지는지, 메모리는 얼마나 더 드는지도 직접 재 봐요.

# %% [markdown] lang="en"
# Q grows from (1, 4) to (5, 4), while K is always (7, 4), with the same numbers. So the encoder's K and V can be computed **once per source sentence** and shared by every decoder step and every target token. Recomputing them at each step would make the same numbers five times over.
#
# Since K and V are the same at every step, an earlier token's row of weights stays the same too: the three rows computed at step 3 equal the first three rows of the weights computed all at once.
#
# Together with keeping the self-attention K and V of lesson 07, lesson 09 turns this idea into the **KV cache**, and measures how much faster it is and how much more memory it costs.

# %%
print(np.allclose(steps[2].weights, cross.weights[:3]))

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 크로스 어텐션은 Q를 디코더에서, K와 V를 인코더의 출력에서 만들어요. 계산은 셀프 어텐션과 같아요.
# - 쿼리 수와 키 수는 달라도 돼요. 가중치는 (번역 토큰 수, 원문 토큰 수) = (5, 7), 출력은 (번역 토큰 수, d_v) = (5, 4)예요.
# - 원문 전체가 주어져 있으니 인과 마스크가 없어요. 어순이 달라도 내용으로 짝을 찾아요: 고양이가→cat, 매트→mat, 위에→on, 앉았다→sat.
# - 인코더의 K와 V는 디코더 스텝과 상관없이 같아요. 원문마다 한 번만 계산하면 돼요.
#
# 다음 시간에는 이 모든 걸 모아 **KV 캐시**를 만들어요. 토큰 하나씩 생성하면서 무엇을 다시 계산하는지 세어 보고, 캐시가 메모리를 줄이는 게 아니라 메모리를 써서 계산을 아낀다는 걸 직접 재 봐요.
#
# [다음: 09. KV 캐시 →](09_kv_cache.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - Cross-attention makes Q from the decoder and K and V from the encoder's output; the computation is self-attention's.
# - The numbers of queries and keys may differ: the weights are (target tokens, source tokens) = (5, 7), the output (target tokens, d_v) = (5, 4).
# - The whole source is given, so there is no causal mask. Pairs are found by content, whatever the word order: 고양이가→cat, 매트→mat, 위에→on, 앉았다→sat.
# - The encoder's K and V are the same at every decoder step: compute them once per source sentence.
#
# Next, all of this comes together in the **KV cache**: generate token by token, count what gets recomputed, and measure that the cache does not reduce memory but spends memory to save compute.
#
# [Next: 09. The KV cache →](09_kv_cache.ipynb)
