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
========================  ==============================
"""

from __future__ import annotations

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
        # --- widgets ---
        "w_start_sharpness": "multiplier",
        "w_start_title": "weights of the query \"cat\"",
        "w_start_caption": "Multiplier {value}: the largest weight is on <b>{token}</b> ({weight}). If this text and the bars change as you move the slider, widgets work.",
        # lessons 01-05
        "w_query_select": "query word",
        "w_query_scores_title": "scores of \"{token}\": q·k / √d_k",
        "w_query_weights_title": "attention weights of \"{token}\"",
        "w_query_caption": "Query <b>{token}</b>: the largest weight, {weight}, goes to <b>{top}</b>. The 7 weights add up to {total}.",
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
        "w_sum_step": "keys added",
        "w_sum_weights_title": "weights of \"{token}\"",
        "w_sum_vector_title": "the weighted sum, component by component",
        "w_sum_partial": "sum so far",
        "w_sum_final": "final output",
        "w_sum_component": "component of the vector",
        "w_sum_caption_start": "Step 0: nothing added yet, so the sum is all zeros. Move the slider to add the keys one by one.",
        "w_sum_caption": "Step {step}/{n}: added {weight} × V[{word}] = {term}. Sum so far: {partial}.",
        "w_sum_caption_done": "All {n} keys added: {partial} is the contextual vector of <b>{token}</b>, the same as its row of weights @ V.",
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
        "check_l01_other_matrix": "Your answer equals {other}: use the key projection W_K.",
        "check_l02_transposed": "Your answer is K·Qᵀ, the transpose: rows must be queries, so write Q @ K.T.",
        "check_l02_scaled": "Your answer is already divided by √d_k. Here we want the raw scores Q·Kᵀ (scaling is lesson 03).",
        "check_l03_unscaled": "Your answer holds the raw scores: divide them by √d_k = {root}.",
        "check_l03_by_dk": "You divided by d_k = {d_k}. Divide by its square root, √d_k = {root}.",
        "check_l04_not_function": "{name} should be a function: def {name}(x): return ...",
        "check_l04_raised": "Calling {name} raised {error}.",
        "check_l04_overflow": "It works on small scores, but on [1000, 1001, 1002] it gives {got}: exp overflowed. Subtract each row's maximum before exp.",
        "check_l04_right": "Right! A correct and stable softmax: [1000, 1001, 1002] → {weights}.",
        "check_l05_all_rows": "Your answer has shape {got}: that is every token's output. Here we want only the row of \"{token}\", shape {needed}.",
        "check_l05_unweighted": "Your answer is the plain sum of the V rows: multiply each row by its weight first.",
        # --- kv cache ---
        # --- quiz ---
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
        "p_scal_var_title": "점수의 분산을 재 보면",
        "p_smax_legend": "T = {t}",
        "p_smax_xlabel": "두 점수의 차이 s1 - s2",
        "p_smax_ylabel": "토큰 1의 가중치",
        "p_smax_title": "온도별로 본 두 점수의 소프트맥스",
        # --- widgets ---
        "w_start_sharpness": "배율",
        "w_start_title": "쿼리 \"cat\"의 가중치",
        "w_start_caption": "배율 {value}: 가장 큰 가중치는 <b>{token}</b>에 있어요 ({weight}). 슬라이더를 움직일 때 이 글과 막대가 바뀌면 위젯이 잘 작동하는 거예요.",
        # lessons 01-05
        "w_query_select": "쿼리 단어",
        "w_query_scores_title": "\"{token}\"의 유사도 점수: q·k / √d_k",
        "w_query_weights_title": "\"{token}\"의 어텐션 가중치",
        "w_query_caption": "쿼리 <b>{token}</b>: 가장 큰 가중치({weight})는 <b>{top}</b>에 가요. 가중치 7개를 모두 더하면 {total}이에요.",
        "w_dot_angle": "k의 각도(°)",
        "w_dot_length": "k의 길이",
        "w_dot_caption": "q·k = {dot}. {hint}",
        "w_dot_same": "같은 방향이에요: 이 길이에서 낼 수 있는 가장 큰 점수예요.",
        "w_dot_right": "직각이에요: 점수가 0이에요.",
        "w_dot_opposite": "정반대 방향이에요: 가장 작은(음수) 점수예요.",
        "w_dot_positive": "90°보다 가까워요: 점수가 양수예요.",
        "w_dot_negative": "90°보다 멀어요: 점수가 음수예요.",
        "w_dk_slider": "d_k",
        "w_dk_weights_title": "쿼리 하나가 무작위 키 8개에 주는 가중치",
        "w_dk_unscaled": "스케일링 없이",
        "w_dk_scaled": "스케일링 후 (÷√d_k)",
        "w_dk_caption": "d_k = {d_k}, 무작위 쿼리 200개의 평균 — 가장 큰 가중치: 스케일링 없이 <b>{max_raw}</b>, 스케일링 후 <b>{max_scaled}</b> · 소프트맥스 기울기의 크기: 스케일링 없이 <b>{grad_raw}</b>, 스케일링 후 <b>{grad_scaled}</b>",
        "w_temp_slider": "온도 T",
        "w_temp_title": "T = {t}일 때 \"{token}\"의 가중치",
        "w_temp_caption": "T = {t}: 가장 큰 가중치 {high}(<b>{top}</b>), 가장 작은 가중치 {low}. 모두 같다면 하나에 {uniform}씩이에요.",
        "w_sum_step": "더한 키 개수",
        "w_sum_weights_title": "\"{token}\"의 가중치",
        "w_sum_vector_title": "가중합을 성분별로 보면",
        "w_sum_partial": "지금까지의 합",
        "w_sum_final": "최종 출력",
        "w_sum_component": "벡터의 성분",
        "w_sum_caption_start": "0단계: 아직 아무것도 더하지 않아서 합이 모두 0이에요. 슬라이더를 움직여 키를 하나씩 더해 보세요.",
        "w_sum_caption": "{step}/{n}단계 — 이번에 더한 항: {weight} × V[{word}] = {term} · 지금까지의 합: {partial}",
        "w_sum_caption_done": "키 {n}개를 모두 더했어요. 이 합이 <b>{token}</b>의 문맥 벡터예요: {partial}. weights @ V의 해당 행과 같아요.",
        # --- checks ---
        "check_right": "맞았어요! {name} 값이 정확해요.",
        "check_not_answered": "아직 답을 적지 않았어요: ... 자리에 답을 넣고 셀을 다시 실행해 보세요.",
        "check_not_numbers": "{name}에는 숫자(배열)가 와야 하는데, 지금은 {kind} 타입이에요.",
        "check_shape": "{name}의 모양이 {got}이에요. {needed}이어야 해요.",
        "check_not_finite": "{name}에 NaN이나 무한대가 있어요: 0으로 나누었거나 exp가 넘쳤는지 확인해 보세요.",
        "check_values": "{name} 값이 아직 달라요: 인덱스 {index}에서 {got}이 나왔는데, {needed}이어야 해요.",
        "check_wrong_value": "{name} 값이 아직 달라요: 지금 값은 {got}이에요.",
        "check_negative": "{name}에 음수가 있어요. 가중치는 음수가 될 수 없어요.",
        "check_rows_sum": "{name}의 각 행은 합이 1이어야 하는데, 합이 {total}인 행이 있어요.",
        # lessons 01-05
        "check_l01_other_matrix": "지금 답은 {other}와 같아요: 키의 선형 변환 W_K를 써야 해요.",
        "check_l02_transposed": "지금 답은 전치된 K·Qᵀ예요: 행이 쿼리가 되도록 Q @ K.T로 써 보세요.",
        "check_l02_scaled": "지금 답은 벌써 √d_k로 나뉘어 있어요. 여기서는 스케일링 전 점수 Q·Kᵀ가 필요해요(스케일링은 03강에서 해요).",
        "check_l03_unscaled": "지금 답은 스케일링 전 점수 그대로예요: √d_k = {root}로 나눠 보세요.",
        "check_l03_by_dk": "d_k = {d_k}로 나눴어요. d_k의 제곱근, √d_k = {root}로 나눠야 해요.",
        "check_l04_not_function": "{name} 자리에는 함수가 와야 해요: def {name}(x): return ...",
        "check_l04_raised": "{name}(x)를 실행하다가 오류가 났어요: {error}",
        "check_l04_overflow": "작은 점수에서는 잘 되는데, [1000, 1001, 1002]를 넣은 결과({got})에 NaN이나 무한대가 있어요: exp가 넘친 거예요. exp 전에 각 행의 최댓값을 먼저 빼 보세요.",
        "check_l04_right": "맞았어요! 정확하고 안정적인 소프트맥스예요: [1000, 1001, 1002] → {weights}.",
        "check_l05_all_rows": "지금 답의 모양은 {got}, 모든 토큰의 출력이에요. 여기서는 \"{token}\"의 행 하나(모양 {needed})만 필요해요.",
        "check_l05_unweighted": "지금 답은 V의 행을 가중치 없이 그냥 더한 값이에요: 각 행에 가중치를 먼저 곱해 보세요.",
        # --- kv cache ---
        # --- quiz ---
    },
}

_current = "en"


def set_language(lang: str) -> None:
    """Choose the language of every text the package shows: ``"ko"`` or ``"en"``."""
    global _current
    if lang not in STRINGS:
        raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")
    _current = lang


def get_language() -> str:
    """The language chosen by :func:`set_language` (English until one is chosen)."""
    return _current


def t(key: str, **values) -> str:
    """The text for ``key`` in the current language, with ``{placeholders}`` filled in."""
    try:
        text = STRINGS[_current][key]
    except KeyError:
        raise KeyError(f"no text {key!r} in the {_current!r} language table") from None
    return text.format(**values) if values else text
