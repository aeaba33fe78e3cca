# Lesson 00's source: make notebooks LESSON=00 builds notebooks/{ko,en}/00_start_here.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 00. 여기서 시작하세요
#
# 트랜스포머 어텐션을 **직접 돌려 보며** 배우는 코스에 오신 걸 환영해요.
# 이 노트북에서는 코스를 어떻게 쓰는지 익히고, 내 컴퓨터에서 모든 게 제대로 돌아가는지 확인해요.
#
# **이번 시간의 목표**
# - 셀을 실행하고, 커널(노트북의 코드를 실제로 실행하는 프로그램)을 다시 시작하고, 위젯을 움직일 수 있어요.
# - 그래프 속 한글이 네모(□)가 아니라 글자로 보이는지 확인해요.
# - 코스 전체에서 쓰는 표기법, 특히 배열의 모양을 `(토큰, d_k)`처럼 적는 방식을 알아요.
#
# **수업 시간**: 약 25분

# %% [markdown] lang="en"
# # 00. Start here
#
# Welcome to a course where you learn Transformer attention **by running it and moving sliders**.
# This notebook shows you how the course works and checks that everything runs on your machine.
#
# **Learning goals**
# - Run cells, restart the kernel, and move a widget.
# - Check that the Korean text in plots shows as letters, not as boxes (□).
# - Learn the notation used throughout, in particular array shapes written as `(tokens, d_k)`.
#
# **Class time**: about 25 minutes

# %% [markdown] lang="ko" slide="slide"
# ## JupyterLab 사용법
#
# - **셀 실행**: 셀을 클릭하고 `Shift + Enter`를 누르면 실행되고 다음 셀로 넘어가요.
#   코드 셀 왼쪽의 `[ ]` 안 숫자는 실행된 순서예요. `[*]`는 아직 실행 중이라는 뜻이에요.
# - **모두 실행**: 메뉴 *실행 → 모든 셀 실행*으로 위에서 아래까지 한 번에 실행해요. 화면이 영어라면 *Run → Run All Cells*예요.
# - **다시 시작**: 이상하게 동작하면 *커널 → 커널 재시작 후 모든 셀 실행*을 눌러요. 영어 화면에서는 *Kernel → Restart Kernel and Run All Cells…* 메뉴예요.
#   변수가 모두 지워지고 처음부터 깨끗하게 다시 실행돼요.
# - **위젯**: 슬라이더나 드롭다운처럼 마우스로 움직이는 컨트롤이에요.
#   값을 바꾸면 그 자리에서 그래프와 설명이 다시 그려져요. 셀을 다시 실행할 필요가 없어요.
#
# 먼저 코스의 도우미 패키지 `qkv_helpers`를 불러오고, 언어를 한국어로 정해요.
# 이 한 줄이 그래프의 글자, 위젯 설명, 채점 메시지의 언어와 한글 글꼴을 모두 정해 줘요.

# %% [markdown] lang="en"
# ## Using JupyterLab
#
# - **Run a cell**: click it and press `Shift + Enter`; it runs and moves to the next cell.
#   The number in `[ ]` left of a code cell is the order cells ran in; `[*]` means still running.
# - **Run everything**: the menu *Run → Run All Cells* runs the notebook top to bottom.
# - **Start over**: if something behaves oddly, use *Kernel → Restart Kernel and Run All Cells…*.
#   All variables are cleared and everything runs again from a clean state.
# - **Widgets**: controls you move with the mouse, such as sliders and drop-downs.
#   Changing a value redraws the plot and its explanation right there; no need to re-run the cell.
#
# First we import the course's helper package, `qkv_helpers`, and choose English.
# This one line sets the language of plot labels, widget descriptions and exercise feedback,
# and the fonts (including a Korean one, used in later lessons).

# %% slide="skip"
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)
np.set_printoptions(precision=2, suppress=True)

# %% [markdown] lang="ko" slide="slide"
# ## 위젯이 작동하나요?
#
# 아래 슬라이더를 좌우로 움직여 보세요. 막대그래프와 그 아래 문장이 바로 바뀌면 위젯이 잘 작동하는 거예요.
#
# > 여기서 보이는 건 다음 강들의 미리보기예요. 문장 "The cat sat on the mat."에서 쿼리 "cat"이
# > 각 단어에 주는 <b>어텐션 가중치</b>예요. 배율이 1이면 01~06강에서 보는 가중치와 같아요("sat"이 0.47).
# > 배율을 키울수록 한 단어("sat")가 가중치를 거의 다 가져가요. 왜 그런지는 04강(소프트맥스)에서 배워요.
#
# 슬라이더가 보이지 않고 `Panel` 같은 글자만 보인다면 셀을 다시 실행하거나 페이지를 새로고침해 보세요.

# %% [markdown] lang="en"
# ## Do widgets work?
#
# Move the slider below left and right. If the bars and the sentence under them change at once,
# widgets work.
#
# > This is a preview of later lessons: the **attention weights** that the query "cat" gives each
# > word of "The cat sat on the mat.". At multiplier 1 they are the weights lessons 01–06 show
# > ("sat" gets 0.47). The larger the multiplier, the more one word ("sat") takes almost all of
# > the weight. Lesson 04 (softmax) explains why.
#
# If you see only text such as `Panel` instead of a slider, re-run the cell or reload the page.

# %% slide="subslide"
qk.widgets.widget_check()

# %% [markdown] lang="ko" slide="slide"
# ## 한글이 보이나요?
#
# 아래 그림은 08강에서 다룰 번역 예제예요. 세로축의 한국어 토큰(고양이가, 매트, 위에, 앉았다)이
# 네모(□)가 아니라 글자로 보여야 해요. 코스는 pip로 설치되는 나눔고딕 글꼴을 쓰기 때문에,
# 시스템에 한글 글꼴이 없어도 돼요.

# %% [markdown] lang="en"
# ## Does Korean text render?
#
# The picture below is the translation example of lesson 08. The Korean tokens on the vertical
# axis (고양이가, 매트, 위에, 앉았다) must show as letters, not as boxes (□). The course uses the
# NanumGothic font installed by pip, so no system font is needed.

# %% slide="subslide"
tr = qk.translation_example()
cross = qk.scaled_dot_product_attention(tr.q, tr.k, tr.v)
ax = qk.plots.plot_cross_attention(cross.weights, tr.target_tokens, tr.source_tokens)

# %%
qk.style.korean_font_name()  # ko: 그래프에 쓰이는 한글 글꼴
                             # en: the Korean font the plots use

# %% [markdown] lang="ko" slide="slide"
# ## 표기법: 배열의 모양
#
# 코스 전체에서 쓰는 예문은 <b>"The cat sat on the mat."</b>이에요. 이 문장을 **토큰** 7개로 나누고,
# 토큰마다 숫자 8개짜리 **임베딩** 벡터를 붙여요. 이 숫자들은 학습된 값이 아니라 시드로 고정한
# 무작위 값이라서, 누가 언제 실행해도 똑같이 나와요. 시드는 무작위 수를 만들 때 정하는 출발 번호예요.
# 시드가 같으면 같은 수가 나와요.
#
# 배열의 모양은 `(행, 열)` 순서로, 각 축이 무엇인지 이름으로 적어요.
# - 임베딩 `X`: `(토큰, d_model)` = `(7, 8)`
# - 쿼리·키 `Q`, `K`: `(토큰, d_k)` = `(7, 4)`, 밸류 `V`: `(토큰, d_v)` = `(7, 4)`
# - 어텐션 가중치: `(쿼리 토큰, 키 토큰)` = `(7, 7)`

# %% [markdown] lang="en"
# ## Notation: the shapes of arrays
#
# The sentence used throughout the course is **"The cat sat on the mat."**. It is split into 7
# **tokens**, and each token gets an **embedding** vector of 8 numbers. These numbers are not
# learned: they are random numbers with a fixed seed, so everyone gets the same ones.
#
# Array shapes are written `(rows, columns)`, naming what each axis counts:
# - embeddings `X`: `(tokens, d_model)` = `(7, 8)`
# - queries and keys `Q`, `K`: `(tokens, d_k)` = `(7, 4)`, values `V`: `(tokens, d_v)` = `(7, 4)`
# - attention weights: `(query tokens, key tokens)` = `(7, 7)`

# %%
ex = qk.running_example()
ex.tokens

# %%
ex.x.shape  # ko: (토큰, d_model)
            # en: (tokens, d_model)

# %% [markdown] lang="ko" slide="subslide"
# ### 직접 해보기
#
# 위의 `(7, 4)`는 7토큰짜리 예문의 `Q`예요. 이번에는 **토큰이 12개인 다른 문장**을 같은 `W_Q`에 넣는다고 해 봐요.
# 그 문장의 `X`는 `(12, d_model)`이고, `W_Q`는 `ex.w_q`(모양은 `ex.w_q.shape`로 확인해요) 그대로예요.
# 그 문장의 `Q = X·W_Q`의 모양을 `(행, 열)` 튜플로 예측해서 `my_shape`에 적고 실행해 보세요.
# 풀이는 그 아래 접힌 셀에 있어요. 모든 셀 실행은 풀이를 실행하지 않아요. 보고 싶을 때 셀을 펼치고, 실행하려면 셀을 고른 뒤 Y(코드 셀로 바꾸기), Shift+Enter를 누르세요.

# %% [markdown] lang="en"
# ### Try it
#
# The `(7, 4)` above is the `Q` of the 7-token sentence. Now take **another sentence, of 12 tokens**, through the same `W_Q`.
# Its `X` is `(12, d_model)`, and `W_Q` is still `ex.w_q` (see `ex.w_q.shape`).
# Predict the shape of that sentence's `Q = X·W_Q`: write it in `my_shape` as a `(rows, columns)` tuple and run the cell.
# The solution is in the folded cell below it. Run All does not run solutions: expand the cell to read it; to run it, select it, press Y (make it a code cell), then Shift+Enter.

# %% exercise=true
my_shape = ...  # ko: (행, 열), 예: (3, 5)
                # en: (rows, columns), e.g. (3, 5)
qk.checks.check_q_shape(my_shape, ex, n_tokens=12)

# %% solution=true
my_shape = (12, ex.w_q.shape[1])  # ko: (토큰, d_k): 행은 X에서(12), 열은 W_Q에서 와요
                                  # en: (tokens, d_k): rows from X (12), columns from W_Q
qk.checks.check_q_shape(my_shape, ex, n_tokens=12).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 강 지도
#
# | # | 강 | 배우는 것 |
# |---|---|---|
# | 00 | [여기서 시작하세요](00_start_here.ipynb) | 코스 사용법, 표기법 |
# | 01 | [Q, K, V의 역할](01_qkv_concepts.ipynb) | 임베딩, Q = X·W_Q 등과 모양, 쿼리 단어 고르기 |
# | 02 | [내적과 유사도](02_dot_product_similarity.ipynb) | 각도와 길이, 점수 행렬 Q·Kᵀ |
# | 03 | [스케일링](03_scaling.ipynb) | 왜 √d_k로 나누는지, 직접 재 보기 |
# | 04 | [소프트맥스](04_softmax.ipynb) | 점수 → 확률, 온도, 넘침(overflow)을 막는 법 |
# | 05 | [가중합](05_weighted_sum.ipynb) | 가중치 × V, 문맥 벡터 |
# | 06 | [인코더 셀프 어텐션](06_encoder_self_attention.ipynb) | 모든 토큰 ↔ 모든 토큰, 멀티헤드 어텐션 |
# | 07 | [디코더 마스크드 셀프 어텐션](07_decoder_masked_self_attention.ipynb) | 인과 마스크, 미래를 보지 않기 |
# | 08 | [크로스 어텐션](08_cross_attention.ipynb) | 디코더의 Q, 인코더의 K와 V |
# | 09 | [KV 캐시](09_kv_cache.ipynb) | 자기회귀 디코딩, 계산량과 메모리를 직접 재기 |
# | 10 | [복습](10_review.ipynb) | 전체 흐름, 퀴즈, 더 나아가기 |
# | 11 | [진짜 모델 들여다보기](11_real_model.ipynb) | 학습된 인코더(MiniLM)를 패키지로 직접 돌려 보기 |
# | 12 | [어텐션 속의 위치](12_positions.ipynb) | 사인파, 학습된 위치, 회전 위치 임베딩(RoPE) |
# | 13 | [큰 규모의 어텐션](13_attention_at_scale.ipynb) | 타일 어텐션, GQA, 슬라이딩 윈도, 페이지 KV 캐시 |
# | 14 | [어텐션이 배우는 걸 지켜보기](14_watch_attention_learn.ipynb) | numpy로 학습하는 번역기, 역전파, 크로스 어텐션이 정렬이 되는 과정 |
# | 15 | [인덕션 헤드](15_induction_heads.ipynb) | 디코더가 복사를 배우는 순간, 이전 토큰 헤드와 인덕션 헤드, 문맥 내 학습 |
#
# **정리**
# - `Shift + Enter`로 셀을 실행하고, 막히면 *커널 재시작 후 모든 셀 실행*으로 처음부터 다시 해요.
# - 노트북 맨 위에서 `qk.setup(lang="ko")`를 한 번 부르면 언어와 한글 글꼴이 정해져요.
# - 배열의 모양은 `(토큰, d_k)`처럼 축의 이름으로 읽어요.
#
# **다음 강**: [01. Q, K, V의 역할](01_qkv_concepts.ipynb)

# %% [markdown] lang="en"
# ## The lesson map
#
# | # | Lesson | What you learn |
# |---|---|---|
# | 00 | [Start here](00_start_here.ipynb) | using the course, notation |
# | 01 | [The roles of Q, K, V](01_qkv_concepts.ipynb) | embeddings, Q = X·W_Q etc. with shapes, picking a query word |
# | 02 | [Dot product and similarity](02_dot_product_similarity.ipynb) | angle and length, the score matrix Q·Kᵀ |
# | 03 | [Scaling](03_scaling.ipynb) | why divide by √d_k, measured |
# | 04 | [Softmax](04_softmax.ipynb) | scores → probabilities, temperature, avoiding overflow |
# | 05 | [Weighted sum](05_weighted_sum.ipynb) | weights × V, contextual vectors |
# | 06 | [Encoder self-attention](06_encoder_self_attention.ipynb) | every token ↔ every token, multi-head attention |
# | 07 | [Decoder masked self-attention](07_decoder_masked_self_attention.ipynb) | the causal mask, not looking ahead |
# | 08 | [Cross-attention](08_cross_attention.ipynb) | Q from the decoder, K and V from the encoder |
# | 09 | [KV cache](09_kv_cache.ipynb) | autoregressive decoding, compute and memory measured |
# | 10 | [Review](10_review.ipynb) | the whole pipeline, a quiz, where to go next |
# | 11 | [Inside a real model](11_real_model.ipynb) | a trained encoder (MiniLM) run by the package itself |
# | 12 | [Positions in attention](12_positions.ipynb) | sinusoidal, learned and rotary (RoPE) positions |
# | 13 | [Attention at scale](13_attention_at_scale.ipynb) | tiled attention, GQA, sliding windows, a paged KV cache |
# | 14 | [Watch attention learn](14_watch_attention_learn.ipynb) | a translator trained in numpy, backpropagation, cross-attention becoming the alignment |
# | 15 | [Induction heads](15_induction_heads.ipynb) | the moment a decoder learns to copy, previous-token and induction heads, in-context learning |
#
# **Key takeaways**
# - `Shift + Enter` runs a cell; *Restart Kernel and Run All Cells* starts clean.
# - One call at the top of each notebook, `qk.setup(lang="en")`, sets the language and fonts.
# - Read array shapes by the names of their axes, as in `(tokens, d_k)`.
#
# **Next lesson**: [01. The roles of Q, K, V](01_qkv_concepts.ipynb)
