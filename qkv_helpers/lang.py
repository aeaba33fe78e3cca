"""The language tables: every text the package shows, in Korean and in English.

One table per language, here and nowhere else. Code asks for a text by key::

    >>> from qkv_helpers.lang import t, set_language
    >>> set_language("en")
    >>> t("query")
    'query'
    >>> set_language("ko")
    >>> t("query")
    '쿼리'
    >>> set_language("en")

Texts may have ``{placeholders}``, filled from the keyword arguments of :func:`t`.
A test checks that both tables have the same keys and the same placeholders.

Glossary (used everywhere in the course):

========================  ==============================
English                   한국어
========================  ==============================
attention                 어텐션
query / key / value       쿼리 / 키 / 밸류 (Q, K, V)
embedding                 임베딩
token                     토큰
projection                선형 변환(프로젝션)
dot product               내적
similarity score          유사도 점수
scaling                   스케일링
softmax                   소프트맥스
temperature               온도
attention weights         어텐션 가중치
weighted sum              가중합
contextual vector         문맥 벡터
self-attention            셀프 어텐션
masked self-attention     마스크드(인과) 셀프 어텐션
causal mask               인과 마스크
cross-attention           크로스 어텐션 (인코더-디코더 어텐션)
multi-head attention      멀티헤드 어텐션
encoder / decoder         인코더 / 디코더
KV cache                  KV 캐시
autoregressive decoding   자기회귀 디코딩
inference                 추론
parameters                매개변수
weight matrix             가중치 행렬
dimension                 차원
layer                     레이어
step                      스텝
KV head                   KV 헤드
FLOPs                     FLOPs(부동소수점 연산 수)
positional encoding       위치 인코딩
RoPE                      회전 위치 임베딩(RoPE)
prefill / decode          프리필 / 디코드
lesson                    강 (03강)
course                    코스
========================  ==============================

가중치 alone means the attention weights. The learned matrices W_Q, W_K, W_V, W_O are
매개변수 or 가중치 행렬 (W_Q …), never bare 가중치. FLOPs is written
"FLOPs(부동소수점 연산 수)" where it first appears in a lesson.

One word per idea: Korean prose (every lesson, the Korean teacher guide and the Korean
table below) uses the first column's word, never the forms in the second (a form counts
where it starts a word: "03강의" is 03강 with a particle, "이 강의" is a different word).
tests/test_lang.py checks it.

========================  ==================================================
use                       never
========================  ==================================================
강                        레슨, 강의
레이어                    층
스텝                      단계마다, 새 단계, 이번 단계, 한 단계에서는, 단계별
KV 헤드                   K/V 헤드
차원 d_k                  길이 d_k, 폭 d_k, 너비 d_k
매개변수                  학습된 가중치, 학습으로 정해지는 가중치, 가중치를 고쳐, 가중치를 학습, 모델 가중치, fp16 가중치, 가중치는 학습
========================  ==================================================
"""

from __future__ import annotations

import string

LANGUAGES = ("ko", "en")

# Each part of the package keeps its texts in its own section of a table.
# Keep the two tables in the same order, section by section.
STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # --- glossary ---
        "attention": "attention",
        "query": "query",
        "key": "key",
        "value": "value",
        "embedding": "embedding",
        "token": "token",
        "dot_product": "dot product",
        "score": "similarity score",
        "scaling": "scaling",
        "softmax": "softmax",
        "temperature": "temperature",
        "weights": "attention weights",
        "weighted_sum": "weighted sum",
        "contextual_vector": "contextual vector",
        "self_attention": "self-attention",
        "masked_self_attention": "masked (causal) self-attention",
        "causal_mask": "causal mask",
        "cross_attention": "cross-attention",
        "multi_head_attention": "multi-head attention",
        "encoder": "encoder",
        "decoder": "decoder",
        "kv_cache": "KV cache",
        "head": "head",
        "position": "position",
        # --- plots ---
        "key_axis": "key (attended to)",
        "query_axis": "query (attending)",
        "masked_scores": "masked scores",
        "source_tokens": "source tokens (encoder)",
        "target_tokens": "target tokens (decoder)",
        # lessons 01-05
        "p_sim_title": "q·k = |q|·|k|·cos θ = {la} × {lb} × {cos} = {dot}   (θ = {angle}°)",
        "p_scal_raw": "q·k (raw), variance {var}",
        "p_scal_scaled": "q·k / √d_k (scaled), variance {var}",
        "p_scal_raw_short": "q·k (raw)",
        "p_scal_scaled_short": "q·k / √d_k (scaled)",
        "p_scal_line": "variance = d_k",
        "p_scal_count": "count",
        "p_scal_hist_title": "scores of random q, k with d_k = {d_k}",
        "p_scal_variance": "variance",
        "p_scal_var_title": "measured variance of the scores",
        "p_smax_legend": "T = {t}",
        "p_smax_xlabel": "score difference s1 - s2",
        "p_smax_ylabel": "weight of token 1",
        "p_smax_title": "softmax of two scores at several temperatures",
        # lessons 06-08, 10
        "plot_pipeline_title": "Attention in one picture: output = softmax(Q·Kᵀ / √d_k)·V",
        "plot_pipeline_x": "x: embeddings",
        "plot_pipeline_q": "Q = x·W_Q",
        "plot_pipeline_k": "K = x·W_K",
        "plot_pipeline_v": "V = x·W_V",
        "plot_pipeline_scores": "scores Q·Kᵀ",
        "plot_pipeline_scaled": "scaled ÷ √d_k",
        "plot_pipeline_weights": "weights = softmax",
        "plot_pipeline_output": "output = weights·V",
        # --- widgets ---
        "w_start_sharpness": "multiplier",
        "w_start_title": "weights of the query \"cat\"",
        "w_start_caption": "Multiplier {value}: the largest weight is on <b>{token}</b> ({weight}). If this text and the bars change as you move the slider, widgets work.",
        # lessons 01-05
        "w_query_select": "query word",
        "w_query_scores_title": "scores of \"{token}\": q·k / √d_k",
        "w_query_weights_title": "attention weights of \"{token}\"",
        "w_query_caption": "Query <b>{token}</b>: the largest weight, {weight}, goes to <b>{top}</b>. The 7 weights add up to {total}.",
        "w_query_key": "key position",
        "w_query_key_caption": "Compared with the key of <b>{word}</b>: score {score}, weight {weight}.",
        "w_dot_angle": "angle of k (°)",
        "w_dot_length": "length of k",
        "w_dot_caption": "q·k = {dot}. {hint}",
        "w_dot_same": "Same direction: for these lengths, the score is as large as it gets.",
        "w_dot_right": "A right angle: the score is 0.",
        "w_dot_opposite": "Opposite directions: the score is as negative as it gets.",
        "w_dot_positive": "Less than 90° apart: a positive score.",
        "w_dot_negative": "More than 90° apart: a negative score.",
        "w_dk_slider": "d_k",
        "w_dk_weights_title": "one query's weights over 8 random keys",
        "w_dk_unscaled": "without scaling",
        "w_dk_scaled": "with scaling (÷√d_k)",
        "w_dk_caption": "d_k = {d_k}: over 200 random queries, the largest weight is on average <b>{max_raw}</b> without scaling and <b>{max_scaled}</b> with it; the size of softmax's gradient is <b>{grad_raw}</b> without and <b>{grad_scaled}</b> with.",
        "w_temp_slider": "temperature T",
        "w_temp_title": "weights of \"{token}\" at T = {t}",
        "w_temp_caption": "T = {t}: the largest weight is {high} (on <b>{top}</b>), the smallest {low}. Uniform would be {uniform} each.",
        "w_sum_step": "values added",
        "w_sum_weights_title": "weights of \"{token}\"",
        "w_sum_vector_title": "the weighted sum, component by component",
        "w_sum_partial": "sum so far",
        "w_sum_final": "final output",
        "w_sum_component": "component of the vector",
        "w_sum_caption_start": "Step 0: nothing added yet, so the sum is all zeros. Move the slider to add the keys one by one.",
        "w_sum_caption": "Step {step}/{n}: added {weight} × V[{word}] = {term}. Sum so far: {partial}.",
        "w_sum_caption_done": "All {n} keys added: {partial} is the contextual vector of <b>{token}</b>, the same as its row of weights @ V.",
        "l03_saturation_row": "d_k = {d_k:5d}   largest weight: {raw:.2f} without scaling, {scaled:.2f} with",
        "l03_gradient_row": "d_k = {d_k:5d}   gradient size: {raw:.3f} without scaling, {scaled:.3f} with",
        # lessons 06-08, 10
        "w_heads_option": "head {number}",
        "w_heads_title": "head {number}: attention weights",
        'w_heads_caption': "Head {number}, each query's strongest key: {pairs}.<br>In {differ} of {total} queries the other head's strongest key is a different one.",
        "w_mask_query": "query position",
        "w_mask_scores_title": "scaled scores with the causal mask",
        'w_mask_weights_title': 'weights of "{token}" after softmax',
        "w_mask_caption": "Query position {position} (<b>{token}</b>) may see: <b>{visible}</b> / hidden (score −∞, weight exactly 0): {hidden}",
        "w_mask_nothing_hidden": "nothing, it is the last token",
        "w_cross_target": "decoder token",
        "w_pipe_query": "query token",
        "w_pipe_caption": "Query <b>{token}</b>: its largest score, {score}, is on the key <b>{top}</b>; scaled by √d_k it is {scaled}, and softmax makes it the weight {weight}. Its output row is the weighted sum of all 7 rows of V.",
        'w_cross_bars_title': 'where "{token}" looks in the source',
        "w_cross_caption": "The query of the decoder token <b>{token}</b> gives its largest weight ({weight}) to <b>{source}</b> in the source. The query comes from the decoder; the keys and values from the encoder.",
        # --- checks ---
        "check_right": "Right! {name} is correct.",
        "check_not_answered": "Not answered yet: replace the ... with your answer and run the cell again.",
        "check_not_numbers": "{name} should be numbers (an array), but it is a {kind}.",
        "check_shape": "{name} has shape {got}, but it should have shape {needed}.",
        "check_not_finite": "{name} holds NaN or infinity: look for a division by zero or an overflowing exp.",
        "check_values": "{name} is not right yet: at index {index} you have {got}, expected {needed}.",
        "check_wrong_value": "{name} is not right yet: you have {got}.",
        "check_negative": "{name} has negative entries, but weights are never negative.",
        "check_rows_sum": "Each row of {name} must sum to 1, but one of yours sums to {total}.",
        # lessons 01-05
        "check_l01_other_matrix": "{name} equals {other}: use the key projection W_K.",
        "check_l02_transposed": "{name} is K·Qᵀ, the transpose: rows must be queries, so write Q @ K.T.",
        "check_l02_scaled": "{name} is already divided by √d_k. Here we want the raw scores Q·Kᵀ (scaling is lesson 03).",
        "check_l03_unscaled": "{name} holds the raw scores: divide them by √d_k = {root}.",
        "check_l03_by_dk": "{name} is divided by d_k = {d_k}. Divide by its square root, √d_k = {root}.",
        "check_l04_not_function": "{name} should be a function: def {name}(x): return ...",
        "check_l04_raised": "Calling {name} on {scores} raised {error}.",
        "check_l04_overflow": "On {scores}, {name} gives NaN or infinity: an exp overflowed, or a whole row underflowed to 0. Subtract each row's own maximum before exp.",
        "check_l04_right": "Right! A correct and stable softmax: [1000, 1001, 1002] → {weights}.",
        "check_l05_all_rows": "{name} has shape {got}: that is every token's output. Here we want only the row of \"{token}\", shape {needed}.",
        "check_l05_unweighted": "{name} is the plain sum of the V rows: multiply each row by its weight first.",
        # lessons 06-08, 10
        "check_l06_unscaled": "{name} is softmax(q·kᵀ)·v without scaling: divide the scores by √d_k = {root} before softmax.",
        "check_l06_other_head": "{name} is the output of head {other}, but the exercise asks for head {head}.",
        "check_l06_no_softmax": "{name} uses the scaled scores as weights directly: apply softmax to them first.",
        "check_l07_not_bool": "{name} should hold True/False (or 1/0) values, one per (query, key) pair.",
        "check_l07_sees_future": "In {name}, query row {row} (position {position}) may see key {col}, which is in its future.",
        "check_l07_hides_past": "In {name}, query row {row} (position {position}) cannot see key {col}, but a query must see itself and every earlier position.",
        "check_l10_unmasked": "{name} is the output without the causal mask: pass mask=qk.causal_mask({n}), so that no token sees the future.",
        "check_l08_transposed": "{name} is {got}, which is (source tokens, target tokens) turned around: each query has a row, and the queries come from the decoder.",
        # --- kv cache ---
        # lesson 09: plots
        "p_kv_tokens": "tokens kept in the cache",
        "p_kv_bytes": "cache size (bytes)",
        "p_kv_measured": "measured (KVCache.nbytes)",
        "p_kv_formula": "formula: 2·layers·kv_heads·head_dim·tokens·batch·bytes",
        "p_kv_uncached_kept": "without a cache: nothing kept",
        "p_kv_growth_title": "KV cache size against the tokens kept",
        "p_kv_step_axis": "tokens so far, t",
        "p_kv_flops": "FLOPs",
        "p_kv_cached": "with the KV cache",
        "p_kv_uncached": "without a cache",
        "p_kv_step_title": "FLOPs of each decoding step",
        "p_kv_total_axis": "tokens generated, T",
        "p_kv_total_title": "FLOPs of generating T tokens",
        "p_kv_speedup": "speed-up (×)",
        "p_kv_measured_speedup": "measured: time without ÷ time with",
        "p_kv_flop_ratio": "FLOP ratio (no overhead)",
        "p_kv_predicted": "FLOPs + {overhead} µs per step (fitted)",
        "p_kv_speedup_title": "Measured speed-up against the theory",
        "p_kv_fill_title": "the cache: length of each kept key",
        "p_kv_fill_row": "layer {layer} head {head}",
        "p_kv_fill_x": "position (hatched: empty)",
        # lesson 09: widget
        "w_kv_next": "next token ▶",
        "w_kv_reset": "reset",
        "w_kv_caption": "Tokens so far: <b>{words}</b> + new <b>{new}</b> (its K and V enter the cache when the next step runs it).<br>Cache: <b>{n}</b> tokens × {per_token} B = <b>{bytes} B</b> = 2 · {layers} layers · {heads} heads · {head_dim} · {n} tokens · {itemsize} B.<br>This step ran {new_tokens} token(s): <b>{cached}</b> FLOPs with the cache, <b>{uncached}</b> without (×{ratio}).",
        "w_kv_full": "<br>The cache is full for this demo: press reset.",
        # lesson 09: checks
        "check_l09_right": "Right! {name} = {bytes} bytes ({readable}).",
        "check_l09_gib": "{name} looks like the answer in GiB ({got}). Give it in bytes: 1 GiB = 1024³ bytes.",
        "check_l09_bits": "{name} is 8 times too large: that is bits. Count bytes ({bytes_per_value} per value).",
        "check_l09_half": "{name} is half the answer. Did you count both the keys and the values (the 2 in front), and {bytes_per_value} bytes per value?",
        "check_l09_double": "{name} is twice the answer. Each value takes {bytes_per_value} bytes here, and K and V count once each.",
        "check_l09_no_batch": "{name} leaves out the batch: each of the {batch} sequences keeps its own cache.",
        "check_l09_no_layers": "{name} is one layer's cache: every one of the {layers} layers keeps its own keys and values.",
        "check_l09_values": "{name} counts values, not bytes: multiply by {bytes_per_value} bytes per value.",
        "check_l09_query_heads": "{name} uses the {query_heads} query heads. Only the {kv_heads} K/V heads are cached: the query heads share them.",
        "check_l09_wrong": "{name} is {got}, {ratio} times the right number of bytes. Multiply 2 · layers · kv_heads · head_dim · tokens · batch · bytes_per_value.",
        # --- quiz ---
        # lessons 06-08, 10
        "quiz_question": "<b>{number}. {text}</b>",
        "quiz_right": "Right. {why}",
        "quiz_wrong": "Not this one. Hint: {hint} Choose again.",
        "quiz_score": "{right} of {total} right at the first try ({answered} answered).",
        "quiz_q01": "X has shape (7, 8) and W_Q has shape (8, 4). What is the shape of Q = X·W_Q?",
        "quiz_q01_c0": "(7, 4)",
        "quiz_q01_c1": "(8, 4)",
        "quiz_q01_c2": "(7, 8)",
        "quiz_q01_c3": "(7, 8, 4)",
        "quiz_q01_why": "Each of the 7 token rows (8 numbers) is multiplied by W_Q, which maps 8 numbers to 4: Q is (tokens, d_k) = (7, 4).",
        "quiz_q02": "Why are the scores divided by √d_k?",
        "quiz_q02_c0": "So that each row of weights adds up to exactly 1",
        "quiz_q02_c1": "q·k spreads wider as d_k grows, and softmax saturates",
        "quiz_q02_c2": "To make dot products cheaper to compute when the vectors are long",
        "quiz_q02_c3": "To change which key gets the largest weight",
        "quiz_q02_why": "For random q and k, q·k has variance d_k; dividing by √d_k brings it back to 1, so softmax stays responsive and its gradients do not vanish (lesson 03). Summing to 1 is softmax's job, and the order of the scores does not change.",
        "quiz_q03": "In the encoder's self-attention, which tokens may \"cat\" attend to?",
        "quiz_q03_c0": "Only \"The\" and itself, the tokens up to its position",
        "quiz_q03_c1": "Every token of the sentence, before and after it",
        "quiz_q03_c2": "Only itself",
        "quiz_q03_c3": "Only the tokens after it, to predict what comes next",
        "quiz_q03_why": "The encoder uses no mask: all 7 × 7 weights can be non-zero (lesson 06). Only the decoder's causal mask limits a token to itself and earlier ones.",
        "quiz_q04": "Self-attention with no position information: you shuffle the input tokens. What happens to the output?",
        "quiz_q04_c0": "Nothing changes: the same rows come out in the same order",
        "quiz_q04_c1": "Its rows are shuffled the same way; each row keeps its values",
        "quiz_q04_c2": "Every row changes, because each token now has different neighbours",
        "quiz_q04_c3": "It raises an error: attention needs the original order",
        "quiz_q04_why": "Attention alone sees a set of tokens, not a sequence: mha(x[order]) = mha(x)[order], each row unchanged. That is why models add position information (lesson 06).",
        "quiz_q05": "What does the causal mask do in the decoder?",
        "quiz_q05_c0": "Each position attends only to itself and earlier ones",
        "quiz_q05_c1": "It hides the padding tokens at the end of short sentences",
        "quiz_q05_c2": "It sets the future tokens' embeddings to zero before attention",
        "quiz_q05_c3": "Each position attends only to later positions",
        "quiz_q05_why": "Future keys get the score −∞ before softmax, so weight exactly 0: changing a future token changes no earlier output (lesson 07). The embeddings themselves are not touched; padding masks are another mask.",
        "quiz_q06": "In cross-attention, where do Q, K and V come from?",
        "quiz_q06_c0": "Q from the decoder; K and V from the encoder",
        "quiz_q06_c1": "Q from the encoder's output; K and V from the decoder",
        "quiz_q06_c2": "Q and K from the encoder, V from the decoder",
        "quiz_q06_c3": "All three from the decoder, which has seen the source",
        "quiz_q06_why": "Each target token asks (query) about the source sentence (keys and values); the weights are (target tokens, source tokens) (lesson 08).",
        "quiz_q07": "During generation, what does the KV cache do to memory?",
        "quiz_q07_c0": "It reduces memory: each key and value is computed only once",
        "quiz_q07_c1": "It keeps memory between steps, ∝ layers · kv_heads · head_dim · tokens",
        "quiz_q07_c2": "It grows with the square of the tokens, like the score matrix",
        "quiz_q07_c3": "Nothing changes: without it the same keys and values are kept too",
        "quiz_q07_why": "The cache keeps 2 · layers · kv_heads · head_dim · tokens · batch · bytes_per_value bytes between steps, growing with every token; for large multi-layer models it dominates memory. Without it nothing is kept between steps, but each step rebuilds every token's keys, values and a (heads, t, t) score matrix, so an uncached step's peak memory can even be higher. The cache trades memory for compute (lesson 09).",
        "quiz_q08": "Why are the queries not cached?",
        "quiz_q08_c0": "They take more memory than the keys and values",
        "quiz_q08_c1": "Past queries are never read again by later steps",
        "quiz_q08_c2": "They are cached as well, together with K and V",
        "quiz_q08_c3": "They change at every step, so a cached copy would be out of date",
        "quiz_q08_why": "The new token's query attends to all keys and values so far. A past query already produced its output and nothing reads it again, while every past key and value is read by each later query. Past queries do not change either: they are simply not needed.",
        "quiz_q09": "When is the KV cache used?",
        "quiz_q09_c0": "In training, to compute all positions of the target at once",
        "quiz_q09_c1": "In inference, when tokens are generated one at a time",
        "quiz_q09_c2": "In the encoder, where every token attends to every token",
        "quiz_q09_c3": "To store the attention weights for the next step",
        "quiz_q09_why": "Training sees the whole target and computes every position in one masked matrix product: nothing to reuse. Generating token by token re-reads the past keys and values at each step; that is what the cache keeps (not the weights).",
        "quiz_q10": "Which of these makes the KV cache smaller?",
        # --- lesson 12: positions ---
        "p_pos_dimension": "dimension",
        "p_pos_position": "position",
        "p_pos_vectors_title": "sinusoidal position vectors",
        "p_pos_similarity_title": "cosine similarity of position vectors",
        "p_pos_distance": "distance m − n",
        "p_pos_score": "score",
        "p_pos_decay_title": "average RoPE score by distance",
        "w_rope_m": "query position m",
        "w_rope_n": "key position n",
        "w_rope_caption": "m = {m}, n = {n}, m − n = {distance}: score RoPE(q)·RoPE(k) = <b>{score}</b>. Move both sliders by the same amount: the score stays.",
        "w_rope_pair": "dimension pair ({first}, {second}): {speed} rad per position",
        "w_rope_q": "q of \"cat\" at m",
        "w_rope_k": "k of \"sat\" at n",
        "w_rope_curve_title": "score for each distance m − n",
        "check_l12_swapped": "{name} puts the query at the key's position and the key at the query's: swap the two positions.",
        "check_l12_not_rotated": "{name} is the score without any rotation: turn the query and the key by their positions first.",
        "check_l12_whole_position": "{name} should be a whole number (an int): positions count tokens.",
        "check_l12_distance_sign": "{name} keeps the distance's size but flips its sign: the key must stay behind the query by m − n.",
        # --- issue 12: lesson 03's gradient spread ---
        "l03_spread_raw": "without scaling",
        "l03_spread_scaled": "scaled",
        "l03_spread_row": "{name:>16}: median {median:.2g}, mean {mean:.2f}, largest {top:.2f}, share below 0.01: {vanishing:.0%}",
        # --- lesson 11: the real model ---
        "w_l11_sentence": "sentence",
        "w_l11_layer": "layer",
        "w_l11_head": "head",
        "w_l11_grid_title": "all heads (rows: layers, columns: heads)",
        "w_l11_title": "layer {layer}, head {head}: {label}",
        "w_l11_caption": "Layer {layer}, head {head} ({n} tokens), share of each row's weight on average: previous token {previous}, next token {next}, same word {same_word}, [CLS] {cls}, [SEP] {sep}; broadness {broad} → <b>{label}</b>.",
        "w_l11_error": "This sentence cannot be used ({error}); still showing the last one.",
        "l11_pattern_previous": "previous token",
        "l11_pattern_next": "next token",
        "l11_pattern_same_word": "same word",
        "l11_pattern_cls": "[CLS] sink",
        "l11_pattern_sep": "[SEP] sink",
        "l11_pattern_broad": "broad",
        "l11_pattern_mixed": "mixed",
        "l11_scores_title": "{pattern}: score per head",
        "check_l11_not_square": "{name} should be one head's weights, (tokens, tokens) = {needed}; it has shape {got}.",
        "check_l11_not_hidden": "{name} is the head's weights with nothing hidden: {keys} must get weight exactly 0. Pass a mask that is False at that key.",
        "check_l11_unscaled": "{name} is softmax(q·kᵀ) without scaling: divide the scores by √d_k = √{head_dim} before softmax.",
        "check_l11_no_bias": "{name} leaves out the biases: Q = x·W_Q + b_Q and K = x·W_K + b_K.",
        "check_l11_transposed": "{name} is turned around (keys as rows): each row must be one query, so use q @ k.T.",
        "check_l11_other_head": "{name} is the weights of head {other}, but the exercise asks for head {head}: take columns {start}:{end}.",
        "check_l11_other_layer": "{name} is head {head}'s weights computed from another layer's input: layer {layer} reads out.hidden_states[{layer}].",
        "check_l11_right": "Right! {name} is correct: layer {layer}, head {head}'s weights, computed exactly as the real model computes them.",
        "l11_bar_weight": "attention weight",
        "l11_bar_contribution": "share of what is handed over, w·‖v·W_O‖",
        'l11_bar_title': 'query "{token}": weight vs. contribution',
        "quiz_q10_c0": "Caching the queries instead of the keys",
        "quiz_q10_c1": "Fewer K/V heads shared by query heads (MQA, GQA)",
        "quiz_q10_c2": "Fewer query heads, with as many K/V heads as before",
        "quiz_q10_c3": "Storing the scores Q·Kᵀ instead of K and V",
        "quiz_q10_why": "The cache grows with kv_heads: multi-query attention keeps one K/V head, grouped-query attention a few. Query heads do not appear in the formula. A sliding window (fewer tokens kept) and lower-precision values shrink it too.",
        # --- exercises, checks and quiz (issue 11) ---
        "check_solution_label": "Solution check",
        "check_unreadable": "{name} could not be read as an answer ({error}).",
        "check_string": "{name} is text (a string). Write numbers without quotes, e.g. 1.5, not \"1.5\".",
        "check_complex": "{name} holds complex numbers. The answer is real numbers only.",
        "check_ragged": "{name} is a ragged list: every row must have the same length.",
        "check_not_a_number": "{name} should be a single number, but it is a {kind}.",
        "check_shape_string": "{name} is text (a string). Write the shape as a tuple of whole numbers, e.g. (3, 5).",
        "check_shape_not_ints": "{name} should hold whole numbers (ints), one per axis, e.g. (3, 5).",
        "check_shape_not_tuple": "{name} should be a shape, a tuple such as (3, 5), but it is a {kind}.",
        "check_shape_length": "{name} has {count} number(s), but this shape has {ndim} axes: (rows, columns).",
        "check_l00_shown_sentence": "{name} is {got}: that is the 7-token sentence's Q. This sentence has {n_tokens} tokens.",
        "check_l00_transposed": "{name} is {got}, turned around: rows are tokens (from X), columns come from W_Q.",
        "check_l01_roles_swapped": "{name} uses the new token's key against the sentence's queries. Here the new token asks: its query against every key.",
        "check_l02_original_sentence": "{name} is the score matrix of the original sentence. Build the new sentence's embeddings first (its rows in the new order).",
        "check_l02_radians": "{name} looks like the angle in radians. Give it in degrees (np.degrees).",
        "check_l02_cosine": "{name} is cos θ. Take the angle itself, in degrees (np.degrees(np.arccos(...))).",
        "check_l02_dot": "{name} is the dot product q·k. Divide by both lengths to get cos θ, then take the angle.",
        "check_l03_right": "Right! {name} = √d_k. Measured over 20,000 random pairs: {measured}.",
        "check_l03_variance": "{name} is the variance, d_k = {d_k}. The standard deviation is its square root.",
        "check_l03_after_scaling": "{name} is the spread after dividing by √d_k. The question asks before scaling.",
        "check_l04_package": "{name} is the package's own function. Write the softmax yourself, with np.exp.",
        "check_l04_wrong_on": "On {scores}: {problem}",
        "check_l04_bad_result": "On {scores}, what {name} returned is not an array of weights: {problem}",
        "check_l04_log_underflow": "On {scores}, {name} gives −∞ or NaN: softmax underflowed to 0 before the log. Compute x − max − log Σ exp(x − max) instead of log(softmax(x)).",
        "check_l04_not_log": "{name} returns the weights themselves; the exercise asks for their logarithm.",
        "check_l05_whole_sentence": "{name} is the output with all 7 tokens. With only the first {n} tokens, the softmax runs over {n} keys.",
        "check_l05_not_renormalised": "{name} uses the 7-token weights cut to {n}: they no longer sum to 1. Compute the softmax over the {n} scores again.",
        "check_l06_rows_of_full": "{name} is the first {n} rows of the 7-token output. With {n} tokens, each query's softmax runs over {n} keys only: compute it again.",
        "check_rows_not_ints": "{name} should be a list of row numbers (ints), e.g. [0, 2].",
        "check_l07_earlier_row": "{name} includes row {row}, before position {position}: the mask hides every later token from it, so its output does not change.",
        "check_l07_missing_row": "{name} misses row {row}: that query may see position {position}, so its output changes too.",
        "check_l07_extra_row": "{name} includes row {row}, which does not change.",
        "check_l09_huge": "{name} is far too large to be a number of bytes.",
        "check_l09_whole_batch": "{name} should be a whole number of sequences.",
        "check_l09_rounded_up": "{name} is rounded up: that many sequences do not fit. Round down.",
        "quiz_wrong_again": "Not this one either. The answer is “{answer}”. {why}",
        "quiz_q01_hint": "Lesson 01: in a matrix product, which axis disappears?",
        "quiz_q02_hint": "Lesson 03: what did the widget show as d_k grew, before scaling?",
        "quiz_q03_hint": "Lesson 06: does the encoder use a mask?",
        "quiz_q04_hint": "Lesson 06: look at where a token's position enters the computation.",
        "quiz_q05_hint": "Lesson 07: which scores become −∞, and where?",
        "quiz_q06_hint": "Lesson 08: who asks, and whose information is fetched?",
        "quiz_q07_hint": "Lesson 09: what did you measure as the cache grew, and what is kept between steps without it?",
        "quiz_q08_hint": "Lesson 09: at step t, which vectors does the new token's attention read?",
        "quiz_q09_hint": "Lessons 07 and 09: when are past keys and values read again and again?",
        "quiz_q10_hint": "Lesson 09: which numbers appear in the cache-size formula?",
    },
    "ko": {
        # --- glossary ---
        "attention": "어텐션",
        "query": "쿼리",
        "key": "키",
        "value": "밸류",
        "embedding": "임베딩",
        "token": "토큰",
        "dot_product": "내적",
        "score": "유사도 점수",
        "scaling": "스케일링",
        "softmax": "소프트맥스",
        "temperature": "온도",
        "weights": "어텐션 가중치",
        "weighted_sum": "가중합",
        "contextual_vector": "문맥 벡터",
        "self_attention": "셀프 어텐션",
        "masked_self_attention": "마스크드(인과) 셀프 어텐션",
        "causal_mask": "인과 마스크",
        "cross_attention": "크로스 어텐션",
        "multi_head_attention": "멀티헤드 어텐션",
        "encoder": "인코더",
        "decoder": "디코더",
        "kv_cache": "KV 캐시",
        "head": "헤드",
        "position": "위치",
        # --- plots ---
        "key_axis": "키 (참고되는 토큰)",
        "query_axis": "쿼리 (참고하는 토큰)",
        "masked_scores": "마스크를 씌운 점수",
        "source_tokens": "원문 토큰 (인코더)",
        "target_tokens": "번역 토큰 (디코더)",
        # lessons 01-05
        "p_sim_title": "q·k = |q|·|k|·cos θ = {la} × {lb} × {cos} = {dot}   (θ = {angle}°)",
        "p_scal_raw": "q·k (스케일링 전), 분산 {var}",
        "p_scal_scaled": "q·k / √d_k (스케일링 후), 분산 {var}",
        "p_scal_raw_short": "q·k (스케일링 전)",
        "p_scal_scaled_short": "q·k / √d_k (스케일링 후)",
        "p_scal_line": "분산 = d_k",
        "p_scal_count": "개수",
        "p_scal_hist_title": "d_k = {d_k}인 무작위 q, k의 점수 분포",
        "p_scal_variance": "분산",
        "p_scal_var_title": "측정한 점수의 분산",
        "p_smax_legend": "T = {t}",
        "p_smax_xlabel": "두 점수의 차이 s1 - s2",
        "p_smax_ylabel": "토큰 1의 가중치",
        "p_smax_title": "온도별로 본 두 점수의 소프트맥스",
        # lessons 06-08, 10
        "plot_pipeline_title": "어텐션 한 장 요약: 출력 = softmax(Q·Kᵀ / √d_k)·V",
        "plot_pipeline_x": "x: 임베딩",
        "plot_pipeline_q": "Q = x·W_Q",
        "plot_pipeline_k": "K = x·W_K",
        "plot_pipeline_v": "V = x·W_V",
        "plot_pipeline_scores": "점수 Q·Kᵀ",
        "plot_pipeline_scaled": "스케일링 ÷ √d_k",
        "plot_pipeline_weights": "가중치 = softmax",
        "plot_pipeline_output": "출력 = 가중치·V",
        # --- widgets ---
        "w_start_sharpness": "배율",
        "w_start_title": "쿼리 \"cat\"의 가중치",
        "w_start_caption": "배율 {value}: 가장 큰 가중치는 <b>{token}</b>에 있어요 ({weight}). 슬라이더를 움직일 때 이 글과 막대가 바뀌면 위젯이 잘 작동하는 거예요.",
        # lessons 01-05
        "w_query_select": "쿼리 단어",
        "w_query_scores_title": "\"{token}\"의 유사도 점수: q·k / √d_k",
        "w_query_weights_title": "\"{token}\"의 어텐션 가중치",
        "w_query_caption": "쿼리 <b>{token}</b>: 가장 큰 가중치({weight})는 <b>{top}</b>에 가요. 가중치 7개를 모두 더하면 {total}이에요.",
        "w_query_key": "키 위치",
        "w_query_key_caption": "<b>{word}</b>의 키와 비교하면: 점수 {score}, 가중치 {weight}.",
        "w_dot_angle": "k의 각도(°)",
        "w_dot_length": "k의 길이",
        "w_dot_caption": "q·k = {dot}. {hint}",
        "w_dot_same": "같은 방향이에요: 이 길이에서 낼 수 있는 가장 큰 점수예요.",
        "w_dot_right": "직각이에요: 점수가 0이에요.",
        "w_dot_opposite": "정반대 방향이에요: 가장 작은(음수) 점수예요.",
        "w_dot_positive": "사이각이 90°보다 작아요: 점수가 양수예요.",
        "w_dot_negative": "사이각이 90°보다 커요: 점수가 음수예요.",
        "w_dk_slider": "d_k",
        "w_dk_weights_title": "쿼리 하나가 무작위 키 8개에 주는 가중치",
        "w_dk_unscaled": "스케일링 없이",
        "w_dk_scaled": "스케일링 후 (÷√d_k)",
        "w_dk_caption": "d_k = {d_k}, 무작위 쿼리 200개의 평균 — 가장 큰 가중치: 스케일링 없이 <b>{max_raw}</b>, 스케일링 후 <b>{max_scaled}</b> · 소프트맥스 기울기의 크기: 스케일링 없이 <b>{grad_raw}</b>, 스케일링 후 <b>{grad_scaled}</b>",
        "w_temp_slider": "온도 T",
        "w_temp_title": "T = {t}일 때 \"{token}\"의 가중치",
        "w_temp_caption": "T = {t}: 가장 큰 가중치 {high}(<b>{top}</b>), 가장 작은 가중치 {low}. 모두 같다면 하나에 {uniform}씩이에요.",
        "w_sum_step": "더한 밸류 개수",
        "w_sum_weights_title": "\"{token}\"의 가중치",
        "w_sum_vector_title": "성분별로 본 가중합",
        "w_sum_partial": "지금까지의 합",
        "w_sum_final": "최종 출력",
        "w_sum_component": "벡터의 성분",
        "w_sum_caption_start": "0단계: 아직 아무것도 더하지 않아서 합이 모두 0이에요. 슬라이더를 움직여 키를 하나씩 더해 보세요.",
        "w_sum_caption": "{step}/{n}단계 — 이번에 더한 항: {weight} × V[{word}] = {term} · 지금까지의 합: {partial}",
        "w_sum_caption_done": "키 {n}개를 모두 더했어요. 이 합이 <b>{token}</b>의 문맥 벡터예요: {partial}. weights @ V의 해당 행과 같아요.",
        "l03_saturation_row": "d_k = {d_k:5d}   가장 큰 가중치: 스케일링 없이 {raw:.2f}, 스케일링 후 {scaled:.2f}",
        "l03_gradient_row": "d_k = {d_k:5d}   기울기 크기: 스케일링 없이 {raw:.3f}, 스케일링 후 {scaled:.3f}",
        # lessons 06-08, 10
        "w_heads_option": "헤드 {number}",
        "w_heads_title": "헤드 {number}의 어텐션 가중치",
        "w_heads_caption": "헤드 {number}에서 각 쿼리가 가장 크게 보는 키: {pairs}.<br>쿼리 {total}개 중 {differ}개는 다른 헤드에서 가장 크게 보는 키가 달라요.",
        "w_mask_query": "쿼리 위치",
        "w_mask_scores_title": "인과 마스크를 씌운 스케일링 점수",
        'w_mask_weights_title': '소프트맥스 뒤 "{token}"의 가중치',
        "w_mask_caption": "쿼리 위치 {position}(<b>{token}</b>)에서 볼 수 있는 토큰: <b>{visible}</b> / 가려진 토큰(점수 −∞, 가중치 정확히 0): {hidden}",
        "w_mask_nothing_hidden": "없어요. 마지막 토큰이에요",
        "w_cross_target": "디코더 토큰",
        "w_pipe_query": "쿼리 토큰",
        "w_pipe_caption": "쿼리 <b>{token}</b>: 가장 큰 점수 {score}는 키 <b>{top}</b>의 것이에요. √d_k로 나누면 {scaled}, 소프트맥스를 거치면 가중치 {weight}가 돼요. 출력 행은 V의 7개 행 모두의 가중합이에요.",
        'w_cross_bars_title': '"{token}"의 가중치 (원문 토큰별)',
        "w_cross_caption": "디코더 토큰 <b>{token}</b>의 쿼리는 원문의 <b>{source}</b>에 가장 큰 가중치({weight})를 줘요. 쿼리는 디코더에서, 키와 밸류는 인코더에서 와요.",
        # --- checks ---
        "check_right": "맞았어요! {name} 값이 정확해요.",
        "check_not_answered": "아직 답을 적지 않았어요: ... 자리에 답을 넣고 셀을 다시 실행해 보세요.",
        "check_not_numbers": "{name}에는 숫자(배열)가 와야 하는데, 지금은 {kind} 타입이에요.",
        "check_shape": "{name}의 모양이 맞지 않아요. 지금 모양 {got}, 필요한 모양 {needed}.",
        "check_not_finite": "{name}에 NaN이나 무한대가 있어요: 0으로 나누었거나 exp가 넘쳤는지 확인해 보세요.",
        "check_values": "{name} 값이 아직 달라요. 인덱스 {index}의 값: 지금 {got}, 정답 {needed}.",
        "check_wrong_value": "{name} 값이 아직 달라요 (지금 값: {got}).",
        "check_negative": "{name}에 음수가 있어요. 가중치는 음수가 될 수 없어요.",
        "check_rows_sum": "{name}의 각 행은 합이 1이어야 하는데, 합이 1이 아닌 행이 있어요 (합: {total}).",
        # lessons 01-05
        "check_l01_other_matrix": "{name} 값이 {other} 값과 같아요. 키의 선형 변환 W_K를 써야 해요.",
        "check_l02_transposed": "{name} 값은 전치된 K·Qᵀ예요. 행이 쿼리가 되도록 Q @ K.T로 써 보세요.",
        "check_l02_scaled": "{name} 값은 벌써 √d_k로 나뉘어 있어요. 여기서는 스케일링 전 점수 Q·Kᵀ가 필요해요(스케일링은 03강에서 해요).",
        "check_l03_unscaled": "{name} 값은 스케일링 전 점수 그대로예요. 점수를 √d_k로 나눠 보세요 (√d_k = {root}).",
        "check_l03_by_dk": "{name} 값은 d_k로 나눈 값이에요 (d_k = {d_k}). d_k의 제곱근 √d_k로 나눠야 해요 (√d_k = {root}).",
        "check_l04_not_function": "{name} 자리에는 함수가 와야 해요: def {name}(x): return ...",
        "check_l04_raised": "{name}(x)를 실행하다가 오류가 났어요. 넣은 점수: {scores}, 오류: {error}",
        "check_l04_overflow": "{name}에 {scores} 점수를 넣으면 결과에 NaN이나 무한대가 나와요. exp가 넘쳤거나, 한 행 전체가 0으로 사라진 거예요. exp 전에 각 행의 최댓값을 빼 보세요.",
        "check_l04_right": "맞았어요! 정확하고 안정적인 소프트맥스예요: [1000, 1001, 1002] → {weights}.",
        "check_l05_all_rows": "{name}의 모양이 모든 토큰의 출력 모양과 같아요 (지금 모양 {got}). 여기서는 \"{token}\"의 행 하나만 필요해요 (모양 {needed}).",
        "check_l05_unweighted": "{name} 값은 V의 행을 가중치 없이 그냥 더한 값이에요. 각 행에 가중치를 먼저 곱해 보세요.",
        # lessons 06-08, 10
        "check_l06_unscaled": "{name} 값은 스케일링 없이 계산한 softmax(q·kᵀ)·v예요. 소프트맥스 전에 점수를 √d_k로 나눠 주세요 (√d_k = {root}).",
        "check_l06_other_head": "{name} 값은 헤드 {other}의 출력이에요. 이 문제는 헤드 {head}의 출력을 물어요.",
        "check_l06_no_softmax": "{name} 값은 스케일링한 점수를 그대로 가중치로 썼어요. 먼저 소프트맥스를 적용해 주세요.",
        "check_l07_not_bool": "{name}에는 (쿼리, 키) 쌍마다 True/False(또는 1/0) 값이 와야 해요.",
        "check_l07_sees_future": "{name}에서 쿼리 행 {row}(위치 {position})의 키 {col} 칸이 True예요. 그 키는 미래 위치라서 False여야 해요.",
        "check_l07_hides_past": "{name}에서 쿼리 행 {row}(위치 {position})의 키 {col} 칸이 False예요. 쿼리는 자기 자신과 그 앞의 모든 위치를 볼 수 있어야 해요.",
        "check_l10_unmasked": "{name} 값은 인과 마스크 없이 계산한 출력이에요. 미래 토큰을 가려 주세요 (mask = qk.causal_mask({n})).",
        "check_l08_transposed": "{name} 값이 (원문 토큰 수, 번역 토큰 수) 순서로 뒤집혔어요 (지금 값: {got}). 행은 쿼리마다 하나씩이고, 쿼리는 디코더에서 와요.",
        # --- kv cache ---
        # lesson 09: plots
        "p_kv_tokens": "캐시에 저장된 토큰 수",
        "p_kv_bytes": "캐시 크기 (바이트)",
        "p_kv_measured": "측정값 (KVCache.nbytes)",
        "p_kv_formula": "공식: 2·레이어·KV 헤드·head_dim·토큰·배치·바이트",
        "p_kv_uncached_kept": "캐시 없음: 저장하는 것 없음",
        "p_kv_growth_title": "저장한 토큰 수에 따른 KV 캐시 크기",
        "p_kv_step_axis": "지금까지의 토큰 수 t",
        "p_kv_flops": "FLOPs",
        "p_kv_cached": "KV 캐시 사용",
        "p_kv_uncached": "캐시 없음",
        "p_kv_step_title": "디코딩 스텝마다의 FLOPs",
        "p_kv_total_axis": "생성한 토큰 수 T",
        "p_kv_total_title": "토큰 T개를 생성하는 데 드는 FLOPs",
        "p_kv_speedup": "속도 향상 (배)",
        "p_kv_measured_speedup": "측정값: 캐시 없음 시간 ÷ 캐시 사용 시간",
        "p_kv_flop_ratio": "FLOPs 비율 (오버헤드 없음)",
        "p_kv_predicted": "FLOPs + 스텝마다 {overhead} µs (맞춘 값)",
        "p_kv_speedup_title": "측정한 속도 향상과 이론",
        "p_kv_fill_title": "캐시: 저장된 키 벡터마다의 길이",
        "p_kv_fill_row": "레이어 {layer} 헤드 {head}",
        "p_kv_fill_x": "위치 (빗금: 빈 자리)",
        # lesson 09: widget
        "w_kv_next": "다음 토큰 ▶",
        "w_kv_reset": "처음부터",
        "w_kv_caption": "지금까지의 토큰: <b>{words}</b> + 새 토큰 <b>{new}</b> (이 토큰의 K와 V는 다음 스텝에서 디코더를 지날 때 캐시에 들어가요).<br>캐시: 토큰 <b>{n}</b>개 × {per_token} B = <b>{bytes} B</b> = 2 · 레이어 {layers} · 헤드 {heads} · {head_dim} · 토큰 {n} · {itemsize} B.<br>이번 스텝은 토큰 {new_tokens}개를 계산했어요: 캐시를 쓰면 <b>{cached}</b> FLOPs, 없으면 <b>{uncached}</b> FLOPs (×{ratio}).",
        "w_kv_full": "<br>이 데모의 캐시가 가득 찼어요. '처음부터'를 눌러 주세요.",
        # lesson 09: checks
        "check_l09_right": "맞았어요! {name} = {bytes} 바이트, 곧 {readable}.",
        "check_l09_gib": "{name} 값은 GiB 단위의 답 같아요 (지금 값: {got}). 바이트로 적어 주세요. 1 GiB = 1024³ 바이트예요.",
        "check_l09_bits": "{name} 값이 8배 커요. 비트로 센 것 같아요. 값 하나에 {bytes_per_value}바이트로 바이트를 세어 주세요.",
        "check_l09_half": "{name} 값이 정답의 절반이에요. 키와 밸류를 둘 다 셌는지(맨 앞의 2), 값 하나에 {bytes_per_value}바이트를 곱했는지 확인해 보세요.",
        "check_l09_double": "{name} 값이 정답의 두 배예요. 여기서는 값 하나가 {bytes_per_value}바이트이고, K와 V는 한 번씩만 세요.",
        "check_l09_no_batch": "{name} 값에 배치가 빠졌어요. 시퀀스 {batch}개가 각자 캐시를 가져요.",
        "check_l09_no_layers": "{name} 값은 레이어 하나의 캐시예요. 레이어 {layers}개가 모두 자기 키와 밸류를 저장해요.",
        "check_l09_values": "{name} 값은 바이트가 아니라 값의 개수예요. 값 하나에 {bytes_per_value}바이트를 곱해 주세요.",
        "check_l09_query_heads": "{name} 값은 쿼리 헤드 {query_heads}개로 계산했어요. 캐시에는 KV 헤드 {kv_heads}개만 들어가요. 쿼리 헤드들이 이걸 나눠 써요.",
        "check_l09_wrong": "{name} 값이 정답 바이트 수의 {ratio}배예요 (지금 값: {got}). 2 · 레이어 · KV 헤드 · head_dim · 토큰 · 배치 · 값당 바이트를 곱해 보세요.",
        # --- quiz ---
        # lessons 06-08, 10
        "quiz_question": "<b>{number}. {text}</b>",
        "quiz_right": "맞았어요. {why}",
        "quiz_wrong": "이건 아니에요. 힌트: {hint} 다시 골라 보세요.",
        "quiz_score": "{total}문제 중 첫 시도에 맞힌 문제 {right}개 ({answered}개 답함).",
        "quiz_q01": "X의 모양이 (7, 8)이고 W_Q의 모양이 (8, 4)예요. Q = X·W_Q의 모양은?",
        "quiz_q01_c0": "(7, 4)",
        "quiz_q01_c1": "(8, 4)",
        "quiz_q01_c2": "(7, 8)",
        "quiz_q01_c3": "(7, 8, 4)",
        "quiz_q01_why": "토큰 7개의 행(숫자 8개)에 각각 W_Q를 곱하면 숫자 4개가 돼요. 그래서 Q는 (토큰 수, d_k) = (7, 4)예요.",
        "quiz_q02": "점수를 √d_k로 나누는 이유는 뭘까요?",
        "quiz_q02_c0": "가중치의 각 행을 더하면 정확히 1이 되게 하려고",
        "quiz_q02_c1": "d_k가 클수록 q·k가 넓게 퍼져 소프트맥스가 포화되니까",
        "quiz_q02_c2": "벡터가 길 때 내적을 더 빨리, 더 적은 메모리로 계산하려고",
        "quiz_q02_c3": "가장 큰 가중치를 받는 키를 바꾸려고",
        "quiz_q02_why": "무작위 q, k에서 q·k의 분산은 d_k예요. √d_k로 나누면 분산이 다시 1이 되어 소프트맥스가 제대로 반응하고 기울기가 사라지지 않아요(03강). 합을 1로 만드는 건 소프트맥스가 하는 일이고, 점수의 순서는 바뀌지 않아요.",
        "quiz_q03": "인코더의 셀프 어텐션에서 \"cat\"은 어떤 토큰을 볼 수 있을까요?",
        "quiz_q03_c0": "자기 위치까지의 토큰, 곧 \"The\"와 자기 자신만",
        "quiz_q03_c1": "문장의 모든 토큰, 앞뒤 상관없이",
        "quiz_q03_c2": "자기 자신만",
        "quiz_q03_c3": "다음을 예측하려고, 자기 뒤의 토큰만",
        "quiz_q03_why": "인코더는 마스크를 쓰지 않아요. 7 × 7 가중치가 모두 0이 아닐 수 있어요(06강). 자기 자신과 앞 토큰만 보게 하는 건 디코더의 인과 마스크예요.",
        "quiz_q04": "위치 정보가 없는 셀프 어텐션에서 입력 토큰의 순서를 섞으면 출력은 어떻게 될까요?",
        "quiz_q04_c0": "아무것도 안 바뀌어요: 같은 행이 같은 순서로 나와요",
        "quiz_q04_c1": "출력 행도 똑같이 섞이고, 각 행의 값은 그대로예요",
        "quiz_q04_c2": "이웃 토큰이 달라졌으니 모든 행의 값이 바뀌어요",
        "quiz_q04_c3": "오류가 나요: 어텐션은 원래 순서가 필요해요",
        "quiz_q04_why": "어텐션만으로는 토큰을 순서 없는 집합으로 봐요: mha(x[order]) = mha(x)[order], 각 행의 값은 그대로예요. 그래서 모델은 위치 정보를 따로 넣어 줘요(06강).",
        "quiz_q05": "디코더에서 인과 마스크는 무슨 일을 할까요?",
        "quiz_q05_c0": "각 위치가 자기 자신과 앞 위치만 보게 해요",
        "quiz_q05_c1": "짧은 문장 끝에 붙은 패딩 토큰을 가려요",
        "quiz_q05_c2": "어텐션 전에 미래 토큰의 임베딩을 0으로 만들어요",
        "quiz_q05_c3": "각 위치가 뒤 위치만 보게 해요",
        "quiz_q05_why": "미래 키의 점수를 소프트맥스 전에 −∞로 만들어서 가중치가 정확히 0이 돼요. 그래서 미래 토큰을 바꿔도 앞 위치의 출력은 그대로예요(07강). 임베딩 자체는 건드리지 않고, 패딩 마스크는 또 다른 마스크예요.",
        "quiz_q06": "크로스 어텐션에서 Q, K, V는 각각 어디서 올까요?",
        "quiz_q06_c0": "Q는 디코더에서, K와 V는 인코더에서",
        "quiz_q06_c1": "Q는 인코더의 출력에서, K와 V는 디코더에서",
        "quiz_q06_c2": "Q와 K는 인코더에서, V는 디코더에서",
        "quiz_q06_c3": "원문을 본 디코더에서 셋 다",
        "quiz_q06_why": "번역 토큰이 쿼리로 원문 문장(키와 밸류)에 물어봐요. 가중치 모양은 (번역 토큰 수, 원문 토큰 수)예요(08강).",
        "quiz_q07": "생성할 때 KV 캐시는 메모리에 어떤 영향을 줄까요?",
        "quiz_q07_c0": "메모리를 줄여요: 키와 밸류를 한 번만 계산하니까",
        "quiz_q07_c1": "스텝 사이에 메모리를 계속 써요: 레이어·KV 헤드·head_dim·토큰에 비례",
        "quiz_q07_c2": "점수 행렬처럼 토큰 수의 제곱에 비례해 늘어요",
        "quiz_q07_c3": "달라지는 게 없어요: 캐시가 없어도 같은 키와 밸류를 저장해요",
        "quiz_q07_why": "캐시는 스텝 사이에 2 · 레이어 수 · KV 헤드 수 · head_dim · 토큰 수 · 배치 · 값 하나의 바이트 수만큼을 계속 들고 있고, 토큰마다 늘어나요. 레이어가 많은 큰 모델에서는 이게 메모리의 대부분을 차지해요. 캐시가 없으면 스텝 사이에 남는 건 없지만, 스텝마다 모든 토큰의 키와 밸류, (헤드, t, t) 점수 행렬을 다시 만들어서 한 스텝의 최대 메모리는 오히려 더 클 수도 있어요. 캐시는 메모리를 내주고 계산을 아껴요(09강).",
        "quiz_q08": "쿼리는 왜 캐시하지 않을까요?",
        "quiz_q08_c0": "키와 밸류보다 메모리를 더 차지해서",
        "quiz_q08_c1": "지난 쿼리는 뒤의 스텝에서 다시 읽을 일이 없어서",
        "quiz_q08_c2": "쿼리도 K, V와 함께 캐시해요",
        "quiz_q08_c3": "스텝마다 값이 바뀌어서 저장해 두면 틀린 값이 되니까",
        "quiz_q08_why": "새 토큰의 쿼리가 지금까지의 모든 키와 밸류를 봐요. 지난 쿼리는 이미 출력을 만들었고 다시 쓰이지 않지만, 지난 키와 밸류는 뒤에 오는 쿼리마다 다시 읽혀요. 지난 쿼리가 바뀌는 것도 아니에요. 그냥 필요가 없어요.",
        "quiz_q09": "KV 캐시는 언제 쓸까요?",
        "quiz_q09_c0": "학습할 때, 정답 문장의 모든 위치를 한 번에 계산하려고",
        "quiz_q09_c1": "추론할 때, 토큰을 하나씩 생성하면서",
        "quiz_q09_c2": "모든 토큰이 모든 토큰을 보는 인코더에서",
        "quiz_q09_c3": "어텐션 가중치를 저장할 때만",
        "quiz_q09_why": "학습은 정답 문장 전체를 알고 있어서 마스크를 씌운 행렬곱 한 번으로 모든 위치를 계산해요. 다시 쓸 게 없죠. 토큰을 하나씩 생성할 때는 매 스텝 지난 키와 밸류를 다시 읽어요. 캐시는 바로 그걸 보관해요(가중치가 아니라요).",
        "quiz_q10": "다음 중 KV 캐시를 작게 만드는 방법은?",
        # --- lesson 12: positions ---
        "p_pos_dimension": "차원",
        "p_pos_position": "위치",
        "p_pos_vectors_title": "사인파 위치 벡터",
        "p_pos_similarity_title": "위치 벡터끼리의 코사인 유사도",
        "p_pos_distance": "거리 m − n",
        "p_pos_score": "점수",
        "p_pos_decay_title": "거리에 따른 RoPE 평균 점수",
        "w_rope_m": "쿼리 위치 m",
        "w_rope_n": "키 위치 n",
        "w_rope_caption": "m = {m}, n = {n}, m − n = {distance}: 점수 RoPE(q)·RoPE(k) = <b>{score}</b>. 두 슬라이더를 같은 만큼 움직여 보세요. 점수는 그대로예요.",
        "w_rope_pair": "차원 쌍 ({first}, {second}): 위치마다 {speed} 라디안",
        "w_rope_q": "\"cat\"의 q (위치 m)",
        "w_rope_k": "\"sat\"의 k (위치 n)",
        "w_rope_curve_title": "거리 m − n마다의 점수",
        "check_l12_swapped": "{name}: 쿼리를 키의 위치에, 키를 쿼리의 위치에 놓았어요. 두 위치를 바꿔 보세요.",
        "check_l12_not_rotated": "{name}: 회전하지 않은 점수예요. 쿼리와 키를 먼저 각자의 위치만큼 돌려 보세요.",
        "check_l12_whole_position": "{name}: 위치는 토큰을 세는 수라서 정수(int)여야 해요.",
        "check_l12_distance_sign": "{name}: 거리의 크기는 맞지만 방향이 반대예요. 키는 쿼리보다 m − n만큼 앞에 있어야 해요.",
        # --- issue 12: lesson 03's gradient spread ---
        "l03_spread_raw": "스케일링 없이",
        "l03_spread_scaled": "스케일링 후",
        "l03_spread_row": "{name:>8}: 중앙값 {median:.2g}, 평균 {mean:.2f}, 최댓값 {top:.2f}, 0.01보다 작은 비율 {vanishing:.0%}",
        # --- lesson 11: the real model ---
        "w_l11_sentence": "문장",
        "w_l11_layer": "레이어",
        "w_l11_head": "헤드",
        "w_l11_grid_title": "모든 헤드 (행: 레이어, 열: 헤드)",
        "w_l11_title": "레이어 {layer}, 헤드 {head}: {label}",
        "w_l11_caption": "레이어 {layer}, 헤드 {head} (토큰 {n}개). 각 행의 가중치가 평균적으로 가는 몫: 앞 토큰 {previous}, 다음 토큰 {next}, 같은 단어 {same_word}, [CLS] {cls}, [SEP] {sep}. 넓게 보는 정도 {broad} → <b>{label}</b>.",
        "w_l11_error": "이 문장은 쓸 수 없어요({error}). 직전 문장을 그대로 보여 줘요.",
        "l11_pattern_previous": "앞 토큰",
        "l11_pattern_next": "다음 토큰",
        "l11_pattern_same_word": "같은 단어",
        "l11_pattern_cls": "[CLS] 싱크",
        "l11_pattern_sep": "[SEP] 싱크",
        "l11_pattern_broad": "넓게 보기",
        "l11_pattern_mixed": "섞임",
        "l11_scores_title": "{pattern}: 헤드별 점수",
        "check_l11_not_square": "{name}은 헤드 하나의 가중치, 곧 (토큰 수, 토큰 수) = {needed} 모양이어야 해요. 지금 모양은 {got}예요.",
        "check_l11_not_hidden": "{name}은 아무것도 가리지 않은 가중치예요. {keys} 자리의 가중치는 정확히 0이어야 해요. 그 키에서 False인 마스크를 넘겨 주세요.",
        "check_l11_unscaled": "{name}은 스케일링 없는 softmax(q·kᵀ)예요. 소프트맥스 전에 점수를 √d_k = √{head_dim}로 나눠 주세요.",
        "check_l11_no_bias": "{name}에 편향이 빠졌어요. Q = x·W_Q + b_Q, K = x·W_K + b_K예요.",
        "check_l11_transposed": "{name}은 행과 열이 뒤바뀌었어요(키가 행). 각 행이 쿼리 하나여야 하니 q @ k.T로 계산해 주세요.",
        "check_l11_other_head": "{name}은 헤드 {other}의 가중치예요. 문제는 헤드 {head}를 물어요. 열 {start}:{end}를 잘라 쓰세요.",
        "check_l11_other_layer": "{name}은 헤드 {head}의 가중치지만 다른 레이어의 입력으로 계산했어요. 레이어 {layer}의 입력은 out.hidden_states[{layer}]예요.",
        "check_l11_right": "맞았어요! {name} 값이 정확해요. 레이어 {layer}, 헤드 {head}의 가중치를 진짜 모델과 똑같은 방법으로 계산했어요.",
        "l11_bar_weight": "어텐션 가중치",
        "l11_bar_contribution": "실제로 건네는 몫, w·‖v·W_O‖",
        'l11_bar_title': '쿼리 "{token}": 가중치와 실제 기여',
        "quiz_q10_c0": "키 대신 쿼리를 캐시하기",
        "quiz_q10_c1": "쿼리 헤드들이 나눠 쓰는 KV 헤드 줄이기 (MQA, GQA)",
        "quiz_q10_c2": "KV 헤드는 그대로 두고 쿼리 헤드만 줄이기",
        "quiz_q10_c3": "K와 V 대신 점수 Q·Kᵀ를 저장하기",
        "quiz_q10_why": "캐시는 KV 헤드 수에 비례해요. 멀티쿼리 어텐션(MQA)은 KV 헤드를 하나만, 그룹 쿼리 어텐션(GQA)은 몇 개만 둬요. 쿼리 헤드 수는 공식에 없어요. 슬라이딩 윈도(저장하는 토큰 줄이기)나 더 낮은 정밀도의 값도 캐시를 줄여요.",
        # --- exercises, checks and quiz (issue 11) ---
        "check_solution_label": "풀이 확인",
        "check_unreadable": "{name} 값을 답으로 읽을 수 없어요 ({error}).",
        "check_string": "{name} 값이 글자(문자열)예요. 숫자는 따옴표 없이 적어요. 예: \"1.5\"가 아니라 1.5.",
        "check_complex": "{name} 값에 복소수가 있어요. 답은 실수만이에요.",
        "check_ragged": "{name} 값은 행마다 길이가 다른 리스트예요. 모든 행의 길이가 같아야 해요.",
        "check_not_a_number": "{name}에는 숫자 하나가 와야 하는데, 지금은 {kind} 타입이에요.",
        "check_shape_string": "{name} 값이 글자(문자열)예요. 모양은 정수 튜플로 적어요. 예: (3, 5).",
        "check_shape_not_ints": "{name}에는 축마다 정수(int) 하나씩이 와야 해요. 예: (3, 5).",
        "check_shape_not_tuple": "{name}에는 (3, 5) 같은 모양 튜플이 와야 하는데, 지금은 {kind} 타입이에요.",
        "check_shape_length": "{name}에 숫자가 {count}개 있어요. 이 모양의 축은 {ndim}개예요: (행, 열).",
        "check_l00_shown_sentence": "{name} 값은 토큰 7개짜리 문장의 Q 모양이에요 (지금 값: {got}). 이 문장의 토큰은 {n_tokens}개예요.",
        "check_l00_transposed": "{name} 값의 순서가 뒤집혔어요 (지금 값: {got}). 행은 토큰(X에서), 열은 W_Q에서 와요.",
        "check_l01_roles_swapped": "{name} 값은 새 토큰의 키를 문장의 쿼리들과 곱했어요. 여기서는 새 토큰이 물어요: 새 토큰의 쿼리와 모든 키의 내적이에요.",
        "check_l02_original_sentence": "{name} 값은 원래 문장의 점수 행렬이에요. 먼저 새 문장의 임베딩(새 순서의 행들)을 만들어 보세요.",
        "check_l02_radians": "{name} 값은 라디안 단위의 각도 같아요. 도 단위로 적어 주세요 (np.degrees).",
        "check_l02_cosine": "{name} 값은 cos θ예요. 각도 자체를 도 단위로 구해 주세요 (np.degrees(np.arccos(...))).",
        "check_l02_dot": "{name} 값은 내적 q·k예요. 두 길이로 나눠 cos θ를 구한 다음 각도를 구해 보세요.",
        "check_l03_right": "맞았어요! {name} = √d_k. 무작위 2만 쌍으로 잰 값: {measured}.",
        "check_l03_variance": "{name} 값은 분산 d_k예요 (d_k = {d_k}). 표준편차는 그 제곱근이에요.",
        "check_l03_after_scaling": "{name} 값은 √d_k로 나눈 뒤의 퍼짐이에요. 문제는 스케일링 전을 물어요.",
        "check_l04_package": "{name} 값은 패키지의 함수 그 자체예요. np.exp로 소프트맥스를 직접 써 보세요.",
        "check_l04_wrong_on": "넣은 점수 {scores}: {problem}",
        "check_l04_bad_result": "넣은 점수 {scores}에서 {name}의 결과가 가중치 배열이 아니에요: {problem}",
        "check_l04_log_underflow": "{name}에 {scores} 점수를 넣으면 −∞나 NaN이 나와요. log 전에 소프트맥스가 0으로 사라진 거예요. log(softmax(x)) 대신 x − max − log Σ exp(x − max)를 계산해 보세요.",
        "check_l04_not_log": "{name}의 결과는 가중치 그 자체예요. 문제는 가중치의 로그를 물어요.",
        "check_l05_whole_sentence": "{name} 값은 토큰 7개 전체로 계산한 출력이에요. 앞의 토큰 {n}개만 있으면 소프트맥스도 키 {n}개에 대해서만 계산해요.",
        "check_l05_not_renormalised": "{name} 값은 토큰 7개의 가중치를 {n}개로 자른 거라 합이 1이 아니에요. 점수 {n}개로 소프트맥스를 다시 계산해 보세요.",
        "check_l06_rows_of_full": "{name} 값은 토큰 7개짜리 출력의 앞 {n}행이에요. 토큰이 {n}개면 각 쿼리의 소프트맥스도 키 {n}개에 대해서만 계산해요. 다시 계산해 보세요.",
        "check_rows_not_ints": "{name}에는 행 번호(정수)의 리스트가 와야 해요. 예: [0, 2].",
        "check_l07_earlier_row": "{name}에 위치 {position}보다 앞의 행이 있어요 (행 {row}). 마스크가 그 뒤의 토큰을 모두 가리니 그 출력은 바뀌지 않아요.",
        "check_l07_missing_row": "{name}에 빠진 행이 있어요 (행 {row}). 그 쿼리는 위치 {position}의 토큰을 볼 수 있으니 출력도 바뀌어요.",
        "check_l07_extra_row": "{name}에 바뀌지 않는 행이 있어요 (행 {row}).",
        "check_l09_huge": "{name} 값이 바이트 수라기엔 너무 커요.",
        "check_l09_whole_batch": "{name}에는 시퀀스의 개수, 곧 정수가 와야 해요.",
        "check_l09_rounded_up": "{name} 값은 올림한 값이에요. 그만큼의 시퀀스는 들어가지 않아요. 내림해 주세요.",
        "quiz_wrong_again": "이것도 아니에요. 답: “{answer}”. {why}",
        "quiz_q01_hint": "01강: 행렬 곱에서 어느 축이 사라지는지 떠올려 보세요.",
        "quiz_q02_hint": "03강: 스케일링 전에 d_k를 키우면 위젯에서 무엇이 달라졌나요?",
        "quiz_q03_hint": "06강: 인코더는 마스크를 쓰나요?",
        "quiz_q04_hint": "06강: 계산의 어디에 토큰의 위치가 들어가는지 찾아보세요.",
        "quiz_q05_hint": "07강: 어느 점수가 −∞가 되는지 떠올려 보세요.",
        "quiz_q06_hint": "08강: 누가 묻고, 누구의 정보를 가져오나요?",
        "quiz_q07_hint": "09강: 캐시가 자랄 때 무엇을 쟀는지, 캐시가 없으면 스텝 사이에 무엇이 남는지 떠올려 보세요.",
        "quiz_q08_hint": "09강: 스텝 t에서 새 토큰의 어텐션이 읽는 벡터는 무엇인가요?",
        "quiz_q09_hint": "07강과 09강: 지난 키와 밸류를 되풀이해서 다시 읽는 건 언제인가요?",
        "quiz_q10_hint": "09강: 캐시 크기 공식에 어떤 수들이 들어가나요?",
    },
}

_current = "en"
_FORMATTER = string.Formatter()


def set_language(lang: str) -> None:
    """Choose the language of every text the package shows: ``"ko"`` or ``"en"``."""
    global _current
    if not isinstance(lang, str) or lang not in STRINGS:
        raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")
    _current = lang


def get_language() -> str:
    """The language chosen by :func:`set_language` (English until one is chosen)."""
    return _current


def t(key: str, **values) -> str:
    """The text for ``key`` in the current language, with ``{placeholders}`` filled in."""
    if not isinstance(key, str):
        raise TypeError(f"key must be the name of a text (a str), got {type(key).__name__} "
                        f"{key!r}")
    try:
        text = STRINGS[_current][key]
    except KeyError:
        raise KeyError(f"no text {key!r} in the {_current!r} language table") from None
    needed = {field for _, field, _, _ in _FORMATTER.parse(text) if field}
    missing = sorted(needed - values.keys())
    if missing:
        raise KeyError(f"the text {key!r} needs values for {', '.join(missing)}: "
                         f"t({key!r}, {', '.join(f'{m}=...' for m in missing)})")
    return text.format(**values) if needed else text
