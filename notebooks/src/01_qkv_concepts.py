# Lesson 01's source: make notebooks LESSON=01 builds notebooks/{ko,en}/01_qkv_concepts.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 01. 쿼리, 키, 밸류: 어텐션의 세 역할
#
# **이번 시간의 목표**
# - 쿼리(Q), 키(K), 밸류(V)가 각각 무슨 일을 하는지 말로 설명할 수 있어요.
# - 토큰이 임베딩 벡터가 되고, 그 임베딩에서 선형 변환(프로젝션)으로 Q, K, V가 나온다는 걸 알아요.
# - Q = X·W_Q, K = X·W_K, V = X·W_V를 모양(shape)까지 적을 수 있어요.
# - 쿼리 단어를 골라 그 단어의 유사도 점수와 어텐션 가중치를 직접 확인해 봐요.
#
# **수업 시간**: 약 40분

# %% [markdown] lang="en"
# # 01. Query, key, value: the three roles in attention
#
# **Goals for this lesson**
# - Say in your own words what the query (Q), key (K) and value (V) each do.
# - See how tokens become embedding vectors, and how a projection turns those embeddings into Q, K and V.
# - Write Q = X·W_Q, K = X·W_K, V = X·W_V with every shape.
# - Pick a query word and look at its similarity scores and attention weights yourself.
#
# **Class time**: about 40 minutes

# %% slide="skip"
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=2, suppress=True)
ex = qk.running_example()                 # ko: 예제 문장 "The cat sat on the mat."
                                          # en: the example sentence "The cat sat on the mat."

# %% [markdown] lang="ko" slide="slide"
# ## 예제 문장
#
# 이 코스 내내 같은 문장 하나를 들고 다닐 거예요. 마침표까지 토큰 7개예요.

# %% [markdown] lang="en"
# ## The running example
#
# We carry one sentence through the whole course. Counting the full stop, it has 7 tokens.

# %%
print(ex.sentence)
print(ex.tokens, len(ex.tokens))

# %% [markdown] lang="ko" slide="slide"
# ## Q, K, V는 무슨 일을 할까요?
#
# 도서관에서 책을 찾는 장면을 떠올려 보세요.
#
# - **쿼리**(Q)는 내가 들고 간 질문이에요. "나는 어떤 정보가 필요하지?" 예를 들어 "cat"이 문장에서 자기와 관련된 단어를 찾고 싶다면, "cat"의 쿼리가 그 질문이에요.
# - **키**(K)는 책마다 붙은 색인 카드예요. 모든 토큰이 자기 키를 가지고 있고, 쿼리는 이 키들과 하나하나 비교돼요. "sat", "on", "mat"의 키를 보고 누가 "cat"과 잘 맞는지 가리는 거죠.
# - **밸류**(V)는 책의 실제 내용이에요. 어느 토큰에 주목할지 정해지면, 그 토큰의 밸류가 실제로 전달돼요.
#
# 중요한 점은 **비교할 때 쓰는 것(K)과 전달되는 것(V)이 따로** 있다는 거예요. 그래서 한 토큰에서 세 벡터를 따로 만들어요. 어떻게 만드는지가 이번 시간의 핵심이에요.

# %% [markdown] lang="en"
# ## What do Q, K and V do?
#
# Think of looking something up in a library.
#
# - The **query (Q)** is the question you bring: "what information do I need?" If "cat" wants to find the words in the sentence that relate to it, "cat"'s query is that question.
# - The **key (K)** is the index card on each book. Every token has its own key, and the query is compared with each of them. Looking at the keys of "sat", "on" and "mat" tells which one matches "cat".
# - The **value (V)** is what is inside the book. Once we know which tokens to attend to, their values are what gets passed along.
#
# The point is that **what you compare (K) and what you hand over (V) are separate**. So each token gets three different vectors. How they are made is the core of this lesson.

# %% [markdown] lang="ko" slide="slide"
# ## 임베딩: 토큰을 벡터로
#
# 모델은 글자를 직접 다루지 못해요. 그래서 토큰마다 숫자 벡터, 즉 **임베딩**을 하나씩 줘요. 토큰 7개의 임베딩을 한 행씩 쌓으면 행렬 **X**가 돼요. 모양은 `(토큰, d_model)` = `(7, 8)`이에요.
#
# 여기 숫자는 학습으로 얻은 게 아니라 시드를 고정한 무작위 숫자예요. 학습된 모델이라면 이 자리에 의미를 담은 숫자가 들어가요.

# %% [markdown] lang="en"
# ## Embeddings: tokens as vectors
#
# A model cannot work with letters directly, so each token gets a vector of numbers: its **embedding**. Stacking the 7 tokens' embeddings as rows gives the matrix **X**, of shape `(tokens, d_model)` = `(7, 8)`.
#
# These numbers are not learned: they are seeded random numbers standing in for what training would produce.

# %%
print(ex.x.shape)                 # ko: (토큰, d_model)
                                  # en: (tokens, d_model)
ex.x[ex.index("cat")]             # ko: "cat"의 임베딩: 8개의 숫자
                                  # en: the embedding of "cat": 8 numbers

# %% [markdown] lang="ko" slide="slide"
# ## Q = X·W_Q, K = X·W_K, V = X·W_V
#
# 참고한 글은 Q, K, V 벡터가 "다음과 같은 연산을 거쳐 구해진다"고 해 놓고 정작 식을 빼먹었어요. 여기서 모양까지 적어 볼게요. 세 행렬 W_Q, W_K, W_V가 바로 **선형 변환**(프로젝션)이에요. 학습으로 정해지는 매개변수(가중치 행렬)이고, 모양은 `(d_model, d_k)` = `(8, 4)`예요.
#
# $$
# \underbrace{Q}_{(7,\,4)} = \underbrace{X}_{(7,\,8)} \cdot \underbrace{W_Q}_{(8,\,4)}, \qquad
# \underbrace{K}_{(7,\,4)} = X \cdot \underbrace{W_K}_{(8,\,4)}, \qquad
# \underbrace{V}_{(7,\,4)} = X \cdot \underbrace{W_V}_{(8,\,4)}
# $$
#
# 행렬 곱에서는 안쪽 숫자(8)가 맞아야 하고, 바깥 숫자가 결과의 모양이 돼요: (7, **8**)·(**8**, 4) → (7, 4). 코드로 확인해 봐요.

# %% [markdown] lang="en"
# ## Q = X·W_Q, K = X·W_K, V = X·W_V
#
# The article this course grows from says the Q, K and V vectors "are computed as follows", and then leaves the formula out. Here it is, with shapes. The three matrices W_Q, W_K and W_V are the **projections**: parameters (weight matrices) set by training, each of shape `(d_model, d_k)` = `(8, 4)`.
#
# $$
# \underbrace{Q}_{(7,\,4)} = \underbrace{X}_{(7,\,8)} \cdot \underbrace{W_Q}_{(8,\,4)}, \qquad
# \underbrace{K}_{(7,\,4)} = X \cdot \underbrace{W_K}_{(8,\,4)}, \qquad
# \underbrace{V}_{(7,\,4)} = X \cdot \underbrace{W_V}_{(8,\,4)}
# $$
#
# In a matrix product the inner sizes (8) must match, and the outer ones give the result's shape: (7, **8**)·(**8**, 4) → (7, 4). Let's check in code.

# %%
print("Q = X·W_Q:", ex.x.shape, "·", ex.w_q.shape, "→", (ex.x @ ex.w_q).shape)
print("K = X·W_K:", ex.x.shape, "·", ex.w_k.shape, "→", (ex.x @ ex.w_k).shape)
print("V = X·W_V:", ex.x.shape, "·", ex.w_v.shape, "→", (ex.x @ ex.w_v).shape)

# %% [markdown] lang="ko" slide="subslide"
# 행렬 곱은 한 번에 하지만, 속을 보면 **토큰마다 따로** 계산돼요. Q의 i번째 행은 X의 i번째 행(그 토큰의 임베딩)에 W_Q를 곱한 거예요. "cat"의 쿼리는 "cat"의 임베딩만으로 정해진다는 뜻이죠.

# %% [markdown] lang="en"
# The product is done in one go, but inside it works **token by token**: row i of Q is row i of X (that token's embedding) times W_Q. So "cat"'s query depends on "cat"'s embedding alone.

# %%
cat = ex.index("cat")
print(np.allclose((ex.x @ ex.w_q)[cat], ex.x[cat] @ ex.w_q))   # ko: 행렬 곱의 한 행 = 한 토큰의 계산
                                                               # en: one row of the product = one token
print(ex.x[cat] @ ex.w_q)                                       # ko: "cat"의 쿼리 (d_k = 4)
                                                                # en: "cat"'s query (d_k = 4)

# %% [markdown] lang="ko" slide="subslide"
# 같은 임베딩에서 나왔어도 W_Q, W_K, W_V가 서로 다르니 **세 벡터는 서로 달라요**. 그래서 "cat"이 질문할 때 쓰는 벡터(쿼리), 질문을 받을 때 쓰는 벡터(키), 내용을 넘겨줄 때 쓰는 벡터(밸류)가 각자 다른 역할을 맡을 수 있어요. (`ex.q`, `ex.k`, `ex.v`는 위의 곱을 미리 계산해 둔 거예요.)

# %% [markdown] lang="en"
# They come from the same embedding, but W_Q, W_K and W_V differ, so **the three vectors differ**. That is what lets "cat"'s asking vector (query), its being-asked vector (key) and its handing-over vector (value) play different roles. (`ex.q`, `ex.k`, `ex.v` are the products above, computed for you.)

# %%
print("q:", ex.q[cat])
print("k:", ex.k[cat])
print("v:", ex.v[cat])

# %% [markdown] lang="ko" slide="slide"
# ## 쿼리 하나가 문장을 바라보는 방법
#
# "cat"의 쿼리를 모든 토큰의 키와 비교하면 토큰마다 **유사도 점수**가 하나씩 나와요. 이 점수를 소프트맥스로 바꾸면 **어텐션 가중치**가 되고, 가중치는 모두 더해 1이에요. 비교 방법(내적)은 02강, √d_k로 나누는 이유는 03강, 소프트맥스는 04강에서 자세히 다뤄요. 지금은 결과만 볼게요. 참고한 글의 예처럼 "cat"은 "sat"에 가장 큰 가중치를 줘요.
#
# 솔직히 말하면 이건 우연이 아니에요. 임베딩과 W_Q, W_K, W_V는 학습되지 않은 무작위 숫자라서, 시드에 따라 "cat"이 어느 토큰을 가장 크게 볼지가 달라져요. 그래서 "sat"이 1등이 되는 시드를 골랐어요(`tools/find_example_seeds.py`가 찾았어요. 08강의 번역 예제도 마찬가지예요). 학습된 모델의 헤드는 데이터에서 배운 관계를 따라요. 바로 앞 토큰을 보는 헤드, 동사가 주어를 보는 헤드처럼 헤드마다 하는 일이 달라요. 11강에서 실제로 학습된 모델(MiniLM)의 헤드가 무엇을 보는지 재 봐요.

# %% [markdown] lang="en"
# ## How one query looks at the sentence
#
# Comparing "cat"'s query with every token's key gives one **similarity score** per token. Softmax turns the scores into **attention weights**, which add up to 1. The comparison (the dot product) is lesson 02, dividing by √d_k is lesson 03, softmax is lesson 04; for now, only the result. Just as in the article's example, "cat" gives "sat" the largest weight.
#
# To be open about it: that is no accident. The embeddings and W_Q, W_K, W_V are untrained random numbers, and which token "cat" weighs most depends on the seed, so we chose a seed that makes it "sat" (`tools/find_example_seeds.py` found it; lesson 08's translation example was chosen the same way). A trained model's heads follow relations learned from data instead: one head looks at the previous token, another from a verb to its subject, each head doing its own job. Lesson 11 measures what the heads of a real trained model (MiniLM) look at.

# %%
view = qk.similarity.query_scores(ex.q, ex.k, cat)
print(view.weights.round(2), round(float(view.weights.sum()), 2))
print(ex.tokens[int(view.weights.argmax())])

# %% [markdown] lang="ko" slide="slide"
# ## 위젯: 쿼리 단어를 바꿔 보세요
#
# 드롭다운에서 쿼리 단어를 고르면 왼쪽에 그 단어의 유사도 점수, 오른쪽에 어텐션 가중치가 그려져요. "키 위치" 슬라이더는 비교할 키 하나를 골라요. 고른 키의 막대가 주황색이 되고, 아래 설명에 그 키의 점수와 가중치가 나와요.
#
# **해 볼 것**
# - "cat"에서 시작해서 "on", "mat", "."로 바꿔 보세요. 쿼리마다 주목하는 토큰이 달라져요.
# - 쿼리는 그대로 두고 "키 위치"를 0부터 6까지 옮겨 보세요. 쿼리 하나가 키 7개와 하나씩 비교되는 과정이에요.
# - "The"(0번)와 "the"(4번)를 비교해 보세요. 철자는 거의 같아도 임베딩이 다르니 쿼리도, 가중치도 달라요.
#
# **눈여겨볼 것**
# - 점수는 음수도 나오지만 가중치는 항상 0 이상이에요.
# - 어떤 단어를 골라도 아래 설명의 가중치 합은 1.00이에요.
# - 점수가 가장 큰 토큰이 가중치도 가장 커요. 순서는 그대로, 크기만 확률로 바뀌어요.

# %% [markdown] lang="en"
# ## Widget: change the query word
#
# Pick a query word in the dropdown: its similarity scores are drawn on the left, its attention weights on the right. The "key position" slider picks one key to compare with: its bars turn orange, and the caption gives its score and weight.
#
# **Try this**
# - Start from "cat", then switch to "on", "mat" and ".". Each query attends to different tokens.
# - Keep the query and move "key position" from 0 to 6: one query compared with the 7 keys, one at a time.
# - Compare "The" (0) with "the" (4). Nearly the same spelling, but different embeddings, so different queries and different weights.
#
# **Notice**
# - Scores can be negative; weights are never below 0.
# - Whatever word you pick, the caption says the weights add up to 1.00.
# - The token with the largest score also gets the largest weight: softmax keeps the order and turns sizes into probabilities.

# %% slide="subslide"
qk.widgets.query_explorer()

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 새 단어의 키와 쿼리
#
# 문장에 없던 새 단어 "dog"가 왔어요. 임베딩은 아래 셀의 `x_dog`, 숫자 8개짜리 벡터예요(`ex.x`의 한 행과 같은 모양). 선형 변환은 예문과 같은 `ex.w_q`, `ex.w_k`를 써요.
#
# 1. "dog"의 **키** 벡터를 계산해 `my_key`에 넣어 보세요. 모양은 `(4,)`예요.
# 2. (조금 더) "dog"가 **쿼리**가 되어 예문의 키 7개에 묻는다면, 유사도 점수 7개는 얼마일까요? `my_scores`에 넣어 보세요. 모양은 `(7,)`이고, 아직 √d_k로 나누지 않아요.

# %% [markdown] lang="en"
# ## Try it: a new word's key and query
#
# A new word, "dog", arrives. Its embedding is `x_dog` in the cell below, a vector of 8 numbers (shaped like one row of `ex.x`). The projections are the example's own `ex.w_q` and `ex.w_k`.
#
# 1. Compute "dog"'s **key** vector into `my_key`. Its shape is `(4,)`.
# 2. (A step further) If "dog" becomes the **query** and asks the sentence's 7 keys, what are the 7 similarity scores? Put them in `my_scores`, shape `(7,)`, not yet divided by √d_k.

# %%
# en: the new word "dog"'s embedding (d_model,)
x_dog = np.array([0.3, -1.2, 0.8, 0.1, -0.5, 1.0, -0.7, 0.4])   # ko: 새 단어 "dog"의 임베딩 (d_model,)
x_dog.shape

# %% exercise=true
my_key = ...   # ko: "dog"의 키: x_dog와 ex.w_k로 계산해요
               # en: "dog"'s key, from x_dog and ex.w_k
qk.checks.check_new_key(my_key, ex, x_dog)

# %% solution=true
my_key = x_dog @ ex.w_k   # (8,)·(8, 4) → (4,)
qk.checks.check_new_key(my_key, ex, x_dog).as_solution()

# %% exercise=true
my_scores = ...   # ko: "dog"의 쿼리 · 예문의 키 7개
                  # en: "dog"'s query · the sentence's 7 keys
qk.checks.check_new_scores(my_scores, ex, x_dog)

# %% solution=true
my_scores = ex.k @ (x_dog @ ex.w_q)   # ko: (7, 4)·(4,) → (7,): 키마다 q_dog·k_j
                                      # en: (7, 4)·(4,) → (7,): q_dog·k_j for every key
qk.checks.check_new_scores(my_scores, ex, x_dog).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 토큰은 임베딩 벡터가 되고, 문장 전체는 행렬 X `(토큰, d_model)`이에요.
# - 선형 변환(프로젝션) 세 개가 X에서 Q, K, V를 만들어요: Q = X·W_Q, K = X·W_K, V = X·W_V, 여기서는 (7, 8)·(8, 4) → (7, 4).
# - 각 행은 토큰 하나의 계산이에요. 같은 임베딩에서 나와도 Q, K, V는 서로 달라요.
# - 쿼리는 묻고, 키는 비교되고, 밸류는 전달돼요. "cat"의 쿼리는 "sat"에 가장 큰 가중치(0.47)를 줘요.
#
# 다음 시간에는 쿼리와 키를 비교하는 방법, 내적을 살펴봐요.
#
# [다음: 02. 내적으로 보는 유사도 →](02_dot_product_similarity.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - Tokens become embedding vectors; the sentence is a matrix X of shape `(tokens, d_model)`.
# - Three projections make Q, K and V from X: Q = X·W_Q, K = X·W_K, V = X·W_V, here (7, 8)·(8, 4) → (7, 4).
# - Each row is one token's computation. Q, K and V come from the same embedding but differ.
# - The query asks, the key is compared, the value is handed over. "cat"'s query gives "sat" the largest weight (0.47).
#
# Next, how a query and a key are compared: the dot product.
#
# [Next: 02. The dot product as similarity →](02_dot_product_similarity.ipynb)
