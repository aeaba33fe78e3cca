# Lesson 07's source: make notebooks LESSON=07 builds notebooks/{ko,en}/07_decoder_masked_self_attention.ipynb.
# The format: tools/nbsource.py.

# %% [markdown] lang="ko" slide="slide"
# # 07. 디코더의 마스크드 셀프 어텐션: 미래는 가려요
#
# **이번 시간의 목표**
# - 디코더가 왜 미래 토큰을 보면 안 되는지 설명하고, 인과 마스크(`causal_mask`)를 만들 수 있어요.
# - 마스크를 씌우기 전과 후의 점수, 소프트맥스 뒤의 가중치를 비교해요.
# - 미래 토큰을 바꿔도 앞 위치의 출력이 하나도 안 바뀐다는 걸 실험으로 확인해요.
# - 학습과 프롬프트(프리필)는 모든 위치를 마스크를 씌워 한 번에, 그 뒤의 생성(디코드)은 한 토큰씩 계산하는 이유를 알고, 09강의 KV 캐시로 이어지는 길을 봐요.
#
# **수업 시간**: 약 45분

# %% [markdown] lang="en"
# # 07. Decoder masked self-attention: hide the future
#
# **Goals for this lesson**
# - Explain why the decoder must not see future tokens, and build the causal mask (`causal_mask`).
# - Compare the scores before and after masking, and the weights after softmax.
# - Check by experiment that changing a future token changes no earlier output.
# - Know why training and the prompt (prefill) compute all positions in one masked pass while generation (decode) then goes one token at a time, the road to lesson 09's KV cache.
#
# **Class time**: about 45 minutes

# %% slide="skip"
import numpy as np
import qkv_helpers as qk

qk.setup(lang=LANG)                       # ko: 그림과 메시지의 언어
                                          # en: language of plots and messages
np.set_printoptions(precision=2, suppress=True)
ex = qk.running_example()                 # "The cat sat on the mat."

# %% [markdown] lang="ko" slide="slide"
# ## 디코더는 한 단어씩 써요
#
# **디코더**는 문장을 만들어 내는 쪽이에요. 번역이든 챗봇의 답이든, 디코더는 앞에서 쓴 토큰들을 보고 **다음 토큰 하나**를 고르고, 그 토큰을 붙여서 또 다음 토큰을 골라요. 이게 **자기회귀 디코딩**이에요.
#
# 디코더의 셀프 어텐션도 Q, K, V를 모두 디코더 자신의 토큰에서 만들어요. 다른 점은 하나예요. "sat" 다음에 올 단어를 고를 때 "on"이나 "mat"을 미리 보면 안 돼요. 실제로 쓸 때는 아직 없는 단어니까요. 그래서 위치 i의 쿼리는 **자기 자신과 그 앞 위치(0..i)의 키만** 보게 해요. 이걸 정하는 게 **인과 마스크**예요. 이 코스에서는 PyTorch의 `F.scaled_dot_product_attention`처럼 `True`가 "볼 수 있음"이에요. 조심하세요. PyTorch 안에서도 `nn.MultiheadAttention`과 `nn.Transformer*`의 `attn_mask`는 반대로 `True`가 "가림"이에요. 또 PyTorch의 `is_causal=True`는 쿼리가 키보다 적을 때 마스크를 왼쪽 위에 맞추지만, 이 코스의 `causal_mask(n_q, n_k)`는 쿼리를 **마지막** n_q개 위치로 봐요(이 강 끝에서 확인해요).

# %% [markdown] lang="en"
# ## The decoder writes one word at a time
#
# The **decoder** is the side that produces a sentence. In translation or in a chatbot's reply alike, it looks at the tokens written so far, picks **the next token**, appends it, and picks the one after: **autoregressive decoding**.
#
# The decoder's self-attention also makes Q, K and V from its own tokens. One thing differs: when choosing the word after "sat", it must not peek at "on" or "mat", which do not exist yet at generation time. So the query at position i may look only at **its own key and the earlier ones (0..i)**. The **causal mask** says exactly that. As in PyTorch's `F.scaled_dot_product_attention`, `True` means "may attend". Careful: within PyTorch itself, `nn.MultiheadAttention` and `nn.Transformer*` take an `attn_mask` where `True` means *blocked*; and PyTorch's `is_causal=True` with fewer queries than keys aligns the mask top-left, whereas this course's `causal_mask(n_q, n_k)` takes the queries to be the **last** n_q positions (checked at the end of this lesson).

# %%
mask = qk.causal_mask(7)                  # ko: (쿼리, 키), True = 볼 수 있음
                                          # en: (queries, keys), True = may attend
print(mask.astype(int))

# %% [markdown] lang="ko" slide="slide"
# ## 마스크 전과 후의 점수
#
# 먼저 마스크 없이 스케일링한 점수 Q·Kᵀ/√d_k를 봐요. 06강의 인코더와 같아요. 모든 칸에 값이 있고, 음수도 있어요.

# %% [markdown] lang="en"
# ## Scores before and after the mask
#
# First the scaled scores Q·Kᵀ/√d_k without a mask, the same as in lesson 06's encoder: every cell has a value, some negative.

# %%
scores = ex.q @ ex.k.T / np.sqrt(ex.d_k)
ax = qk.plots.plot_attention_heatmap(scores, ex.tokens, signed=True)

# %% [markdown] lang="ko" slide="subslide"
# 이제 마스크가 `False`인 칸, 즉 대각선 위쪽의 미래 칸의 점수를 <b>−∞</b>로 바꿔요. 회색 빗금 칸이 가려진 곳이에요. 왜 0이 아니라 −∞일까요? 점수 0은 소프트맥스 뒤에도 exp(0) = 1이라 가중치가 남아요. −∞는 exp(−∞) = 0이라 가중치가 **정확히 0**이에요.

# %% [markdown] lang="en"
# Now the cells where the mask is `False`, the future cells above the diagonal, get the score **−∞**; they are the grey hatched cells. Why −∞ and not 0? A score of 0 still becomes exp(0) = 1 inside softmax and keeps some weight. −∞ gives exp(−∞) = 0, a weight of **exactly 0**.

# %%
ax = qk.plots.plot_masked_scores(scores, mask, ex.tokens)

# %% [markdown] lang="ko" slide="subslide"
# 소프트맥스 뒤의 가중치를 봐요. 대각선 위쪽의 가려진 칸은 모두 정확히 0(0.00)이고, 남은 칸끼리 합이 1이에요. 첫 토큰 "The"는 자기 자신밖에 못 보니 가중치가 1.00이에요.

# %% [markdown] lang="en"
# And the weights after softmax: every hidden cell, above the diagonal, is exactly 0 (0.00), and the remaining cells of each row sum to 1. The first token, "The", can see only itself, so its weight there is 1.00.

# %%
weights = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v, mask=mask).weights
print((weights[~mask] == 0).all(), weights.sum(axis=1))   # ko: 가려진 칸은 정확히 0, 행의 합은 여전히 1
                                                          # en: hidden cells exactly 0, rows sum to 1
ax = qk.plots.plot_attention_heatmap(weights, ex.tokens)

# %% [markdown] lang="ko" slide="subslide"
# 꼭 −∞여야만 0이 되는 건 아니에요. 소프트맥스는 행의 최댓값을 빼고 exp를 취하니까, float32에서는 최댓값보다 약 **104** 넘게 작은 점수의 exp가 0으로 반올림돼요(아주 작은 수는 0이 되는 언더플로, float64라면 약 745). 그래서 라이브러리들은 −∞ 대신 아주 큰 음수(예: float32의 최솟값)로 채우기도 해요. 이유 중 하나는 **모든 키가 가려진 행**이에요. −∞로 채우면 exp(−∞ − (−∞)) = NaN이 되지만, 큰 음수로 채우면 NaN 없이 고른 가중치가 나와요. 물론 그 가중치에는 의미가 없어요. `qk`는 그런 행을 만나면 NaN 대신 오류를 내요.

# %% [markdown] lang="en"
# −∞ is not the only way to get 0. Softmax subtracts the row's maximum before `exp`, and in float32 the `exp` of anything more than about **104** below the maximum rounds to exactly 0 (underflow; about 745 in float64). That is why libraries often fill with a large negative number (such as float32's minimum) instead of −∞. One reason is a **row where every key is hidden**: filled with −∞ it becomes exp(−∞ − (−∞)) = NaN, while a large negative fill gives uniform weights and no NaN (weights that mean nothing, of course). `qk` raises an error on such a row instead of returning NaN.

# %%
print(round(qk.float_limits.exp_underflow_limit(np.float32), 2))   # ko: 이보다 작으면 exp가 정확히 0
                                                                   # en: below this, exp is exactly 0
w = qk.softmax(np.array([0.0, -50.0, -104.0], dtype=np.float32))
print(w[1] > 0, w[2] == 0)          # ko: −50: 아주 작지만 0은 아님, −104: 정확히 0
                                    # en: −50: tiny but not 0; −104: exactly 0
row, hidden = np.array([[0.3, -1.2, 2.0]], dtype=np.float32), np.zeros((1, 3), dtype=bool)
print(qk.float_limits.fill_and_softmax(row, hidden))         # ko: 모두 가림, −∞: NaN
                                                             # en: all hidden, −∞: NaN
# ko: 큰 음수: 고른 값
# en: large negative: uniform
print(qk.float_limits.fill_and_softmax(row, hidden, fill=np.finfo(np.float32).min))

# %% [markdown] lang="ko" slide="slide"
# ## 위젯: 쿼리 위치를 옮겨 보세요
#
# 슬라이더로 쿼리 위치를 고르면, 왼쪽에는 마스크를 씌운 점수 행렬에서 그 행이 주황색으로 표시되고, 오른쪽에는 그 쿼리의 소프트맥스 뒤 가중치가 막대로 나와요. 회색 빗금 영역이 가려진 미래 토큰이에요.
#
# **해 볼 것**
# - 위치 0("The")에서 시작해 한 칸씩 오른쪽으로 옮겨 보세요.
# - 위치 2("sat")와 위치 6(".")의 막대를 비교해 보세요.
#
# **눈여겨볼 것**
# - 위치 i의 쿼리는 키 0..i, 모두 i + 1개를 봐요. 위치가 늘수록 볼 수 있는 토큰이 하나씩 늘어요.
# - 가려진 막대는 언제나 0.00이고, 보이는 막대들의 합은 1이에요.
# - 위치 0은 볼 수 있는 키가 자기 하나뿐이라서 가중치가 1.00이에요.

# %% [markdown] lang="en"
# ## Widget: move the query position
#
# Pick a query position with the slider: on the left its row of the masked score matrix is outlined in orange; on the right are that query's weights after softmax. The grey hatched area is the hidden future.
#
# **Try this**
# - Start at position 0 ("The") and move right one step at a time.
# - Compare the bars of position 2 ("sat") with those of position 6 (".").
#
# **Notice**
# - The query at position i sees keys 0..i, i + 1 of them: one more with every step.
# - A hidden bar is always 0.00, and the visible bars sum to 1.
# - Position 0 sees only itself, so its weight is 1.00.

# %% slide="subslide"
qk.widgets.causal_mask_explorer()

# %% [markdown] lang="ko" slide="slide"
# ## 실험으로 확인하기: 미래를 바꿔도 과거는 그대로
#
# 마스크가 정말 미래를 가린다면, **미래 토큰의 임베딩을 바꿔도 그보다 앞 위치의 출력은 한 자리도 안 바뀌어야** 해요. 위치 4("the")의 임베딩을 무작위 벡터로 바꿔 보고, 출력 행마다 가장 크게 변한 양을 재 봐요.

# %% [markdown] lang="en"
# ## Checking by experiment: change the future, the past stays
#
# If the mask really hides the future, then **changing a future token's embedding must not change a single digit of any earlier output**. Let's replace the embedding at position 4 ("the") by a random vector and measure, for each output row, the largest change.

# %%
change = qk.encoder_decoder.change_future_token(ex.x, ex.w_q, ex.w_k, ex.w_v, position=4)
print(change.row_change)                  # ko: 출력 행마다 가장 크게 변한 양
                                          # en: largest change in each output row
print((change.row_change[:4] == 0).all()) # ko: 위치 0..3: 정확히 0
                                          # en: positions 0..3: exactly 0

# %% [markdown] lang="ko" slide="subslide"
# 위치 0..3의 변화가 **정확히 0**이에요. 근사값이 아니라 같은 숫자예요. 위치 4부터는 바뀐 토큰을 볼 수 있으니 출력이 달라져요. 위치 하나만 봐서는 우연일 수도 있으니 7개 위치를 모두 바꿔 보고, 비교를 위해 마스크 없이(인코더처럼) 같은 실험도 해 봐요. 마스크가 없으면 모든 행이 바뀌어요.

# %% [markdown] lang="en"
# The change at positions 0..3 is **exactly 0**: not approximately, the same numbers. From position 4 on, the changed token is visible, so the outputs differ. One position could be luck, so let's change each of the 7 positions in turn, and, for contrast, run the same experiment without the mask (as in the encoder): then every row changes.

# %%
ed = qk.encoder_decoder
print(all((ed.change_future_token(ex.x, ex.w_q, ex.w_k, ex.w_v, p).row_change[:p] == 0).all()
          for p in range(7)))             # ko: 어느 위치를 바꿔도 그 앞은 그대로
                                          # en: whichever position changes, the earlier ones stay
unmasked = ed.change_future_token(ex.x, ex.w_q, ex.w_k, ex.w_v, position=4, masked=False)
print(unmasked.row_change)                # ko: 마스크가 없으면 모든 행이 바뀌어요
                                          # en: without the mask every row changes

# %% [markdown] lang="ko" slide="slide"
# ## 학습과 프리필은 한 번에, 디코드는 한 토큰씩
#
# **학습할 때**는 정답 문장 전체를 이미 알고 있어요. 마스크 덕분에 위치 i는 0..i만 보니까, 7개 위치를 **행렬 곱 한 번**으로 동시에 계산해도 미래를 훔쳐보는 위치가 없어요. 문장의 모든 위치에서 "다음 토큰 맞히기"를 한꺼번에 연습하는 셈이에요.
#
# **생성할 때**(추론)도 처음에 받은 프롬프트는 이미 다 있어요. 그래서 프롬프트는 학습 때처럼 마스크를 씌워 **한 번에** 계산해요. 이걸 **프리필**(prefill)이라고 해요. 그다음부터는 다음 토큰이 아직 없어요. 위치 i의 토큰을 골라야 i + 1번째 입력이 생기니까, 한 스텝에 새 토큰 하나씩 차례로 계산해요(**디코드**). 새 토큰 하나만 계산하는 스텝에서는 그 쿼리가 지금까지의 모든 토큰을 봐도 되니 가릴 게 없어요. 하지만 토큰 여러 개를 한 번에 계산하는 경우(프리필, 캐시 없이 처음부터 다시 계산하기)에는 인과 마스크가 꼭 필요해요.
#
# 두 방식이 같은 답을 내는지 확인해 봐요. `attend_one_at_a_time`은 생성처럼 스텝마다 `q[i]`로 `k[:i+1]`, `v[:i+1]`만 보고 계산해요.

# %% [markdown] lang="en"
# ## Training and prefill all at once, decode one token at a time
#
# **In training** the whole target sentence is known. Thanks to the mask, position i sees only 0..i, so all 7 positions can be computed in **one matrix product** with none of them peeking at the future: the model practises "guess the next token" at every position at once.
#
# **In generation (inference)** the prompt is known in full, so it runs like training: **one masked pass** over all its tokens, called **prefill**. After that the next token does not exist yet: choosing the token at position i is what creates input i + 1, so generation goes on one new token per step (**decode**). A step with a single new token needs no mask, since everything its query can see is in its past; but any step that runs several tokens at once (prefill, or recomputing everything without a cache) needs the causal mask.
#
# Let's check that the two give the same answer. `attend_one_at_a_time` works like generation: at each step `q[i]` looks only at `k[:i+1]` and `v[:i+1]`.

# %%
at_once = qk.scaled_dot_product_attention(ex.q, ex.k, ex.v, mask=mask).output   # ko: 학습: 한 번에
                                                                                # en: training: at once
# en: generation: one by one
one_by_one = qk.encoder_decoder.attend_one_at_a_time(ex.q, ex.k, ex.v)           # ko: 생성: 한 토큰씩
print(np.allclose(at_once, one_by_one))

# %% [markdown] lang="ko" slide="subslide"
# 생성의 각 스텝을 다시 보세요. 스텝 i의 쿼리는 **새 토큰 하나의 쿼리**지만, 키와 밸류는 **지금까지의 모든 토큰**의 것이 필요해요. 그리고 앞의 실험이 보여 주듯, 앞 위치의 K와 V는 뒤에 토큰이 붙어도 바뀌지 않아요. 그러니 매 스텝 처음부터 다시 계산하는 건 낭비예요. 한 번 계산한 K, V를 저장해 두고 새 토큰의 것만 덧붙이면 되죠. 이게 09강의 **KV 캐시**예요. 그때 새 토큰들은 캐시된 토큰들 **뒤에** 있어서 마스크 모양이 (새 토큰 수, 전체 토큰 수)가 돼요. 아래 연습이 바로 그 마스크예요.

# %% [markdown] lang="en"
# Look at one generation step again. Its query is **the new token's query alone**, but it needs the keys and values of **every token so far**. And as the experiment above showed, the earlier positions' K and V do not change when tokens are appended. Recomputing them at every step is waste: keep the K and V computed once, and append the new token's. That is lesson 09's **KV cache**. The new tokens then sit **after** the cached ones, so the mask has shape (new tokens, all tokens). The exercise below builds exactly that mask.

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 캐시가 있을 때의 마스크
#
# 키가 5개 있고(n_k = 5), 그중 앞의 3개는 캐시에 있던 토큰, 뒤의 2개가 이번에 새로 들어온 토큰이에요. 쿼리는 새 토큰 2개뿐이라 n_q = 2예요. 모양 (2, 5)의 인과 마스크 `my_mask`를 직접 만들어 보세요.
#
# 힌트: 쿼리 i는 위치 n_k − n_q + i에 있어요. 그 위치까지의 키(자기 자신 포함)는 `True`, 그 뒤는 `False`예요. 리스트, `np.array`, 비교 연산 무엇이든 써도 되지만 `qk.causal_mask`는 쓰지 말고요.

# %% [markdown] lang="en"
# ## Try it: the mask with a cache
#
# There are 5 keys (n_k = 5): the first 3 tokens were in the cache, the last 2 have just arrived. Only the 2 new tokens ask, so n_q = 2. Build the causal mask `my_mask` of shape (2, 5) yourself.
#
# Hint: query i sits at position n_k − n_q + i. Keys up to that position (itself included) are `True`, later ones `False`. Lists, `np.array` or comparisons are all fine, but not `qk.causal_mask`.

# %% exercise=true
my_mask = ...   # ko: 모양 (2, 5), True = 볼 수 있음
                # en: shape (2, 5), True = may attend
qk.checks.check_causal_mask(my_mask, n_q=2, n_k=5)

# %% solution=true
# en: query i is at position 3 + i
my_mask = np.array([[key <= 5 - 2 + i for key in range(5)] for i in range(2)])   # ko: 쿼리 i는 위치 3 + i
qk.checks.check_causal_mask(my_mask, n_q=2, n_k=5).as_solution()

# %% [markdown] lang="ko" slide="subslide"
# 패키지의 `causal_mask(n_q, n_k)`도 같은 규칙을 써요. 새 토큰 3개, 키 6개로 보면 정사각형 마스크의 **마지막 세 행**과 같아요. 새 토큰들이 문장의 마지막 위치들이니까요.

# %% [markdown] lang="en"
# The package's `causal_mask(n_q, n_k)` uses the same rule. With 3 new tokens and 6 keys, it equals the **last three rows** of the square mask: the new tokens are the sentence's last positions.

# %%
print(qk.causal_mask(3, 6).astype(int))
print((qk.causal_mask(3, 6) == qk.causal_mask(6)[-3:]).all())

# %% [markdown] lang="ko" slide="slide"
# ## 직접 해보기: 어느 행이 바뀔까요?
#
# 먼저 예측하고, 검사로 확인해요. 예문 7토큰(`ex.x`)에 인과 마스크를 씌운 셀프 어텐션에서, **위치 3의 토큰 하나만** 다른 임베딩으로 바꿔요. 출력의 어느 행(위치)이 달라질까요? 행 번호의 리스트를 `my_rows`에 적어 보세요. 예: `[0, 2]`.

# %% [markdown] lang="en"
# ## Try it: which rows change?
#
# Predict first, then check. In causally masked self-attention over the example's 7 tokens (`ex.x`), you replace **only the token at position 3** with another embedding. Which rows (positions) of the output change? Write the list of row numbers in `my_rows`, e.g. `[0, 2]`.

# %% exercise=true
my_rows = ...   # ko: 달라지는 출력 행의 번호들
                # en: the numbers of the output rows that change
qk.checks.check_changed_rows(my_rows, ex, position=3)

# %% solution=true
my_rows = [3, 4, 5, 6]   # ko: 위치 3을 볼 수 있는 쿼리: 자기 자신과 그 뒤의 모든 위치
                         # en: the queries that may see position 3: itself and every later one
qk.checks.check_changed_rows(my_rows, ex, position=3).as_solution()

# %% [markdown] lang="ko" slide="slide"
# ## 정리
#
# - 디코더의 셀프 어텐션은 인과 마스크로 미래를 가려요. 위치 i의 쿼리는 키 0..i만 봐요.
# - 가려진 점수는 −∞가 되고, 소프트맥스 뒤 가중치는 정확히 0이에요. 남은 가중치의 합은 여전히 1이에요.
# - 미래 토큰을 바꿔도 앞 위치의 출력은 정확히 그대로예요. 마스크가 없으면 모든 출력이 바뀌어요.
# - 학습과 생성의 프리필은 마스크 덕분에 모든 위치를 행렬 곱 한 번으로 계산하고, 그 뒤의 생성(디코드)은 한 토큰씩 계산해요. 두 결과는 같아요.
# - 가려진 칸을 −∞ 대신 큰 음수로 채워도 float32에서는 가중치가 정확히 0이 돼요(최댓값보다 약 104 넘게 작으면). 모든 키가 가려진 행은 −∞로는 NaN이 되니 따로 다뤄야 해요.
# - 생성 때 앞 토큰들의 K, V는 바뀌지 않으니 저장해 두고 다시 쓸 수 있어요. 09강의 KV 캐시예요.
#
# 다음 시간에는 디코더가 인코더의 문장을 보는 방법, 크로스 어텐션을 살펴봐요.
#
# [다음: 08. 크로스 어텐션 →](08_cross_attention.ipynb)

# %% [markdown] lang="en"
# ## Key takeaways
#
# - The decoder's self-attention hides the future with the causal mask: the query at position i sees keys 0..i only.
# - Hidden scores become −∞, so their weights after softmax are exactly 0; the remaining weights still sum to 1.
# - Changing a future token leaves every earlier output exactly as it was; without the mask every output changes.
# - Training, and the prefill of generation, compute all positions in one masked matrix product; after that, generation (decode) computes one token at a time; the results are the same.
# - Filling hidden cells with a large negative number instead of −∞ also gives weights of exactly 0 in float32 (anything about 104 below the maximum); a row with every key hidden is NaN with −∞ and must be handled separately.
# - During generation the earlier tokens' K and V never change, so they can be kept and reused: lesson 09's KV cache.
#
# Next, how the decoder looks at the encoder's sentence: cross-attention.
#
# [Next: 08. Cross-attention →](08_cross_attention.ipynb)
