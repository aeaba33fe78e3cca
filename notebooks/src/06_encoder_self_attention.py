# Lesson 06's source: make notebooks LESSON=06 builds notebooks/{ko,en}/06_encoder_self_attention.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 06. 인코더의 셀프 어텐션: 모든 토큰이 모든 토큰을 봐요
#
# **이번 시간의 목표**
# - 인코더의 셀프 어텐션에서는 Q, K, V가 모두 같은 문장에서 나오고, 모든 토큰이 모든 토큰을 본다는 걸 히트맵으로 확인해요.
# - 멀티헤드 어텐션이 d_model을 여러 헤드로 나눠 각자 어텐션을 계산한다는 걸 알고, 헤드마다 가중치 패턴이 다르다는 걸 위젯으로 봐요.
# - 토큰 순서를 섞으면 출력 행도 똑같이 섞일 뿐이라는 걸 실험으로 보고, 그래서 위치 정보가 필요하다는 걸 이해해요.
# - 헤드 하나의 출력을 직접 계산해 봐요.
#
# **수업 시간**: 약 35분

# %% [markdown] lang="en"
# # 06. Encoder self-attention: every token looks at every token
#
# **Goals for this lesson**
# - See on a heat map that in the encoder's self-attention Q, K and V all come from the same sentence, and every token attends to every token.
# - Know that multi-head attention splits d_model into heads that each compute their own attention, and see with a widget that the heads weigh different pairs.
# - Show by experiment that shuffling the tokens only shuffles the output rows, and so why positions must be encoded.
# - Compute one head's output yourself.
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
# ## 인코더: 문장 전체를 한꺼번에 읽어요
#
# 트랜스포머의 **인코더**는 입력 문장을 읽어서, 토큰마다 문장 전체의 맥락이 담긴 **문맥 벡터**를 만들어요. 이때 쓰는 게 **셀프 어텐션**이에요. "셀프"인 이유는 Q, K, V가 모두 **같은 문장 X**에서 나오기 때문이에요: Q = X·W_Q, K = X·W_K, V = X·W_V.
#
# 인코더는 문장을 이미 다 알고 있으니 가릴 게 없어요. 마스크가 없으니 **모든 토큰이 모든 토큰을 봐요**. 앞 단어든 뒤 단어든 상관없어요. 01~05강에서 계산한 어텐션이 바로 이거예요. 어텐션 가중치의 모양은 (토큰 수, 토큰 수) = (7, 7)이고, 49칸이 모두 0보다 커요.

# %% [markdown] lang="en"
# ## The encoder reads the whole sentence at once
#
# A Transformer's **encoder** reads the input sentence and gives every token a **contextual vector** that carries the context of the whole sentence. It does this with **self-attention**: "self" because Q, K and V all come from **the same sentence X**: Q = X·W_Q, K = X·W_K, V = X·W_V.
#
# The encoder already has the whole sentence, so there is nothing to hide: with no mask, **every token attends to every token**, before it or after it. This is the attention of lessons 01 to 05. The weights are (tokens, tokens) = (7, 7), and all 49 of them are above 0.

# %%
result = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v)   # ko: 마스크 없음
                                                             # en: no mask
print(result.weights.shape)               # ko: (토큰, 토큰)
                                          # en: (tokens, tokens)
print((result.weights > 0).all())         # ko: 49칸 모두 0보다 커요
                                          # en: all 49 are above 0
print(result.weights.sum(axis=1))         # ko: 각 행의 합은 1
                                          # en: each row sums to 1

# %% [markdown] lang="ko" slide="subslide"
# 히트맵으로 보면 한 행이 쿼리 하나예요. 그 행의 칸들은 이 쿼리가 각 키에서 얼마나 가져오는지를 보여 줘요. "cat" 행을 보세요. 가장 밝은 칸은 "sat"(0.47)이에요. 참고한 글의 예처럼 "cat"이 "sat"에 가장 주목해요. 01강에서 말했듯 이건 그렇게 되도록 고른 시드 덕분이에요(`tools/find_example_seeds.py`). 학습된 모델이라면 어느 쌍이 밝을지를 학습이 정하고, 11강에서 그런 모델을 직접 재 봐요. 어느 행이든 앞뒤의 모든 칸에 값이 있다는 것도 눈여겨보세요.

# %% [markdown] lang="en"
# On the heat map each row is one query, and its cells show how much that query takes from each key. Look at the row of "cat": its brightest cell is "sat" (0.47), as in the article's example. As lesson 01 said, that is because the seed was chosen to make it so (`tools/find_example_seeds.py`); in a trained model, training decides which pairs light up, and lesson 11 measures such a model. Notice too that every row has weight on both sides, before and after its own token.

# %%
ax = qk.plots.plot_attention_heatmap(result.weights, ex.tokens, highlight_row=ex.index("cat"))

# %% [markdown] lang="ko" slide="slide"
# ## 멀티헤드 어텐션: 여러 시선으로 한꺼번에
#
# 어텐션 한 번은 쿼리마다 가중치 분포를 하나만 만들어요. 그런데 한 단어는 여러 관계를 동시에 가져요. "cat"은 "sat"의 주어이기도 하고, "The"와 한 묶음이기도 하죠. **멀티헤드 어텐션**은 어텐션을 여러 개 나란히 돌려서 관계를 여러 개 볼 수 있게 해요.
#
# - d_model = 8을 헤드 2개로 나눠요. 헤드마다 폭이 head_dim = 8 / 2 = 4예요.
# - 헤드마다 자기 몫의 W_Q, W_K, W_V로 자기만의 q, k, v를 만들고, 어텐션을 따로 계산해요.
# - 헤드들의 출력(각각 (7, 4))을 이어 붙여 (7, 8)을 만들고, 마지막으로 W_O를 곱해요.
#
# `qk.encoder_decoder.encoder_example()`은 예제 문장의 임베딩과 헤드 2개짜리 `MultiHeadAttention`을 같이 줘요. `project`는 헤드별 q, k, v를 `(헤드 수, 토큰 수, head_dim)` 모양으로 돌려줘요.

# %% [markdown] lang="en"
# ## Multi-head attention: several views at once
#
# One attention gives each query a single distribution of weights. But a word has several relations at once: "cat" is the subject of "sat", and it also belongs with "The". **Multi-head attention** runs several attentions side by side, so that several relations can be seen.
#
# - d_model = 8 is split into 2 heads, each of width head_dim = 8 / 2 = 4.
# - Each head makes its own q, k, v with its share of W_Q, W_K, W_V, and computes its own attention.
# - The heads' outputs, (7, 4) each, are put side by side into (7, 8), and multiplied by W_O at the end.
#
# `qk.encoder_decoder.encoder_example()` gives the running sentence's embeddings with a two-head `MultiHeadAttention`. Its `project` returns each head's q, k, v, shaped `(n_heads, tokens, head_dim)`.

# %%
enc = qk.encoder_decoder.encoder_example()
print(enc.mha)
p = enc.mha.project(enc.x)                # ko: 헤드별 q, k, v
                                          # en: each head's q, k, v
print(p.q.shape, p.k.shape, p.v.shape)    # ko: (헤드 수, 토큰 수, head_dim)
                                          # en: (n_heads, tokens, head_dim)

# %% [markdown] lang="ko" slide="subslide"
# 어텐션 전체를 부르면 출력과 가중치가 나와요. 가중치는 헤드마다 (7, 7)이라서 모양이 (2, 7, 7)이에요. 헤드 0과 헤드 1이 쿼리마다 가장 크게 보는 키를 나란히 적어 보면, 7개 쿼리 모두 두 헤드의 답이 달라요. 예를 들어 "mat"은 헤드 0에서는 "cat"을, 헤드 1에서는 "on"을 가장 크게 봐요.
#
# 한 가지는 솔직하게 말해 둘게요. 이 모델의 매개변수(가중치 행렬 W_Q, W_K, W_V, W_O)는 학습된 게 아니라 시드를 고정한 무작위 숫자예요. 그래서 "헤드 0은 주어를 본다" 같은 뜻은 없어요. 여기서 보이는 건 **같은 입력에서도 헤드마다 다른 쌍에 가중치를 준다**는 구조 자체예요. 학습된 모델에서는 이 구조 덕분에 헤드마다 바로 앞 토큰, 주어와 동사 같은 서로 다른 관계를 맡게 돼요.

# %% [markdown] lang="en"
# Calling the whole attention gives the output and the weights; the weights are (7, 7) per head, so (2, 7, 7). Listing each query's strongest key in head 0 and in head 1 side by side, the two heads disagree on all 7 queries. "mat", for instance, looks most at "cat" in head 0 and at "on" in head 1.
#
# To be honest about it: this model's parameters (the weight matrices W_Q, W_K, W_V, W_O) are seeded random numbers, not learned ones, so there is no meaning like "head 0 finds the subject". What you see is the structure itself: **from the same input, each head weighs different pairs**. In a trained model, that structure is what lets heads take on different relations, such as the previous token, or a verb's subject.

# %%
out, w = enc.mha(enc.x)
print(out.shape, w.shape)
for head, keys in enumerate(qk.encoder_decoder.top_keys(w, enc.tokens)):
    print(head, keys)

# %% [markdown] lang="ko" slide="slide"
# ## 위젯: 헤드를 골라 보세요
#
# 슬라이더로 헤드를 고르면 그 헤드의 (7, 7) 가중치 히트맵이 다시 그려져요. 아래 설명에는 쿼리마다 가장 크게 보는 키와, 다른 헤드와 답이 다른 쿼리 수가 나와요.
#
# **해 볼 것**
# - 헤드 0과 헤드 1을 번갈아 고르면서 "the"와 "mat"의 행을 비교해 보세요.
# - 한 헤드 안에서 가중치가 한 칸에 몰린 행(0.8 이상)과 고르게 퍼진 행을 찾아보세요.
#
# **눈여겨볼 것**
# - 입력도, 문장도 같은데 그림이 완전히 달라요. 차이는 헤드마다 다른 W_Q, W_K뿐이에요.
# - 어느 헤드든 행의 합은 1이에요. 헤드마다 따로 소프트맥스를 하니까요.

# %% [markdown] lang="en"
# ## Widget: pick a head
#
# Pick a head with the slider: its (7, 7) weight heat map is redrawn. The caption lists each query's strongest key, and how many queries disagree with the other head.
#
# **Try this**
# - Switch between head 0 and head 1 and compare the rows of "the" and "mat".
# - Within one head, find a row whose weight sits in one cell (0.8 or more) and a row that is spread out.
#
# **Notice**
# - Same input, same sentence, completely different pictures. The only difference is each head's own W_Q and W_K.
# - Every row still sums to 1, in either head: each head has its own softmax.

# %% slide="subslide"
qk.widgets.head_selector()

# %% [markdown] lang="ko" slide="slide"
# ## 헤드들의 출력을 합치기
#
# 헤드마다 출력이 (7, 4)예요. 두 헤드의 출력을 옆으로 이어 붙이면 (7, 8)이 되고, 여기에 W_O를 곱하고 편향 b_O를 더하면 멀티헤드 어텐션의 출력이에요. 위에서 `enc.mha(enc.x)`가 돌려준 `out`과 같은지 확인해 봐요.

# %% [markdown] lang="en"
# ## Putting the heads back together
#
# Each head's output is (7, 4). Side by side, the two make (7, 8); times W_O, plus the bias b_O, that is the output of multi-head attention. Let's check it equals the `out` that `enc.mha(enc.x)` returned above.

# %%
heads = qk.scaled_dot_product_attention(p.q, p.k, p.v).output   # ko: (헤드 수, 토큰 수, head_dim)
                                                                # en: (n_heads, tokens, head_dim)
merged = enc.mha.merge_heads(heads)                               # ko: (토큰 수, d_model)
                                                                  # en: (tokens, d_model)
print(heads.shape, merged.shape)
print(np.allclose(merged @ enc.mha.w_o + enc.mha.b_o, out))

# %% [markdown] lang="ko" slide="slide"
# ## 어텐션은 순서를 모를까요?
#
# 셀프 어텐션의 계산을 다시 보면, 토큰의 **위치**는 어디에도 안 들어가요. 쿼리와 키의 내적, 소프트맥스, 밸류의 가중합뿐이죠. 그렇다면 토큰 순서를 섞으면 어떻게 될까요? 문장을 거꾸로 ". mat the on sat cat The"로 넣어 봐요.
#
# 예상: 출력 행들이 입력과 똑같이 섞일 뿐, 각 토큰이 받는 문맥 벡터는 그대로일 거예요. 식으로 쓰면 `mha(x[order]) == mha(x)[order]`예요.

# %% [markdown] lang="en"
# ## Does attention know the order?
#
# Look at self-attention's computation again: the **position** of a token appears nowhere. There are dot products of queries and keys, a softmax, and a weighted sum of values. So what happens if we shuffle the tokens? Let's feed the sentence backwards, ". mat the on sat cat The".
#
# Prediction: the output rows are shuffled exactly like the input, and each token gets the same contextual vector as before. As a formula: `mha(x[order]) == mha(x)[order]`.

# %%
order = [6, 5, 4, 3, 2, 1, 0]                                     # ko: 거꾸로
                                                                  # en: backwards
check = qk.encoder_decoder.permutation_check(enc.mha, enc.x, order)
print([enc.tokens[i] for i in order])
print(check.max_difference < 1e-12)                               # mha(x[order]) == mha(x)[order]

# %% [markdown] lang="ko" slide="subslide"
# "cat"의 출력을 직접 비교해 봐요. 원래 문장에서 "cat"은 위치 1, 거꾸로 된 문장에서는 위치 5예요. 두 벡터가 똑같아요. 인코더에게 "The cat sat on the mat."과 ". mat the on sat cat The"는 같은 단어 묶음일 뿐이에요.
#
# 그래서 실제 트랜스포머는 **위치 정보**를 넣어 줘요. 원래 논문은 위치마다 정해진 사인·코사인 벡터를 임베딩에 더하고(사인파 위치 인코딩), 위치마다 학습한 벡터를 더하는 모델도 있어요. 요즘 많은 모델이 쓰는 **회전 위치 임베딩**(RoPE)은 다르게 해요. 임베딩에는 아무것도 더하지 않고, **모든 레이어에서** 쿼리와 키를 위치에 비례한 각도만큼 회전시켜요. 그러면 위치는 점수 q·k에 두 토큰의 절대 위치가 아니라 **상대 위치** m − n으로만 들어가요. 점수를 정하는 건 여전히 q와 k의 내용이고, m − n에는 부호가 있어요(앞인지 뒤인지). 세 방법은 12강(어텐션 속의 위치)에서 직접 계산하고, RoPE에서 위치가 상대 위치로만 들어간다는 것도 확인해요.

# %% [markdown] lang="en"
# Compare the output of "cat" directly: position 1 in the sentence, position 5 backwards. The two vectors are identical. To the encoder, "The cat sat on the mat." and ". mat the on sat cat The" are the same bag of words.
#
# That is why a real Transformer brings in **position information**. The original paper adds a fixed sine/cosine vector per position to the embeddings (sinusoidal positional encoding), and some models add a learned vector per position. **Rotary position embedding** (RoPE), used by many recent models, works differently: it adds nothing to the embeddings, but rotates the queries and keys **in every layer** by an angle proportional to their position, so that position enters a score q·k only through the two tokens' **relative position** m − n, not where they are; the content of q and k still sets the score, and m − n is signed (ahead or behind). Lesson 12 (positions in attention) computes all three and shows that in RoPE position enters only as the relative position.

# %%
print(check.output[1])                    # ko: 원래 문장의 "cat" (위치 1)
                                          # en: "cat" in the sentence (position 1)
print(check.output_permuted[5])           # ko: 거꾸로 된 문장의 "cat" (위치 5)
                                          # en: "cat" backwards (position 5)

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 짧은 문장에서 헤드 1의 출력
#
# 인코더에 문장의 앞 네 토큰, "The cat sat on"만 들어간다면 **헤드 1**의 출력은 어떻게 될까요? 아래 셀에 헤드 1의 쿼리, 키, 밸류(7토큰 문장 전체, 각각 (7, 4))를 꺼내 두었어요. 앞의 네 토큰만 써서 `softmax(q·kᵀ / √d_k)·v`를 계산해 `my_head`에 넣어 보세요. d_k는 헤드의 차원 head_dim = 4이고, 결과 모양은 (4, 4)예요. `qk.softmax`를 써도 돼요.
#
# 주의: 7토큰 출력 `heads[1]`의 앞 네 행과는 달라요. 소프트맥스가 키 네 개에 대해서만 계산되니까요.

# %% [markdown] lang="en"
# ## Try it: head 1's output for a shorter sentence
#
# If only the first four tokens, "The cat sat on", went into the encoder, what would **head 1** output? The cell below takes out head 1's queries, keys and values (for the whole 7-token sentence, (7, 4) each). Using the first four tokens only, compute `softmax(q·kᵀ / √d_k)·v` into `my_head`. d_k is the head's dimension, head_dim = 4, and the result is (4, 4). You may use `qk.softmax`.
#
# Careful: it differs from the first four rows of the 7-token output `heads[1]`, because the softmax runs over four keys only.

# %%
q, k, v = p.q[1], p.k[1], p.v[1]
print(q.shape, k.shape, v.shape)

# %% exercise=true
my_head = ...   # ko: "The cat sat on"에서 헤드 1의 출력, (4, 4)
                # en: head 1's output for "The cat sat on", (4, 4)
qk.checks.check_prefix_head(my_head, enc.mha, enc.x, head=1, n_tokens=4)

# %% solution=true
q4, k4, v4 = q[:4], k[:4], v[:4]                                  # ko: 앞의 네 토큰만
                                                                  # en: the first four tokens only
my_head = qk.softmax(q4 @ k4.T / np.sqrt(q4.shape[-1])) @ v4      # (4, 4)·(4, 4) → (4, 4)
qk.checks.check_prefix_head(my_head, enc.mha, enc.x, head=1, n_tokens=4).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 인코더의 셀프 어텐션은 Q, K, V를 모두 같은 문장에서 만들고, 마스크가 없어서 모든 토큰이 모든 토큰을 봐요. 가중치는 (토큰 수, 토큰 수)이고 모든 칸이 0보다 커요.
# - 멀티헤드 어텐션은 d_model을 헤드로 나눠(여기서는 8 = 2 × 4) 헤드마다 따로 어텐션을 계산하고, 이어 붙인 뒤 W_O를 곱해요. 같은 입력에서도 헤드마다 다른 쌍에 가중치를 줘요.
# - 어텐션만으로는 순서를 몰라요. 토큰을 섞으면 출력 행도 똑같이 섞일 뿐이에요. 그래서 위치 정보를 넣어요. 임베딩에 위치 벡터를 더하거나, RoPE처럼 모든 레이어에서 쿼리와 키를 회전시켜요.
#
# 다음 시간에는 디코더로 넘어가요. 디코더는 아직 쓰지 않은 미래 토큰을 보면 안 되니까, 인과 마스크로 가려요.
#
# [다음: 07. 디코더의 마스크드 셀프 어텐션 →](07_decoder_masked_self_attention.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - The encoder's self-attention makes Q, K and V from the same sentence and uses no mask: every token attends to every token. The weights are (tokens, tokens), all above 0.
# - Multi-head attention splits d_model into heads (here 8 = 2 × 4), computes attention in each head separately, joins the results and multiplies by W_O. From the same input, the heads weigh different pairs.
# - Attention alone does not know the order: shuffling the tokens only shuffles the output rows. That is why position information is brought in: a position vector added to the embeddings, or, with RoPE, queries and keys rotated in every layer.
#
# Next, the decoder. It must not look at future tokens it has not written yet, so a causal mask hides them.
#
# [Next: 07. Decoder masked self-attention →](07_decoder_masked_self_attention.ipynb)
