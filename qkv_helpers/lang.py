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
        # --- widgets ---
        "w_start_sharpness": "multiplier",
        "w_start_title": "weights of the query \"cat\"",
        "w_start_caption": "Multiplier {value}: the largest weight is on <b>{token}</b> ({weight}). If this text and the bars change as you move the slider, widgets work.",
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
        # --- widgets ---
        "w_start_sharpness": "배율",
        "w_start_title": "쿼리 \"cat\"의 가중치",
        "w_start_caption": "배율 {value}: 가장 큰 가중치는 <b>{token}</b>에 있어요 ({weight}). 슬라이더를 움직일 때 이 글과 막대가 바뀌면 위젯이 잘 작동하는 거예요.",
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
