"""The tokenisation choices the README documents, checked."""

from __future__ import annotations

from memory_bench_bm25.tokens import Tokenizer


def test_default_lowercases_stems_and_drops_short_stop_words() -> None:
    tok = Tokenizer()
    assert tok(["Mara Olsen WORKS for Acme."]) == [["mara", "olsen", "work", "acm"]]


def test_question_words_are_kept_by_the_default_list() -> None:
    (q,) = Tokenizer()(["Who does Mara Olsen work for?"])
    assert q[:2] == ["who", "doe"]  # kept; they match no declarative fact text
    (q,) = Tokenizer(stopwords="en_plus")(["Who does Mara Olsen work for?"])
    assert "who" not in q


def test_options_switch_stemming_and_stop_words_off() -> None:
    assert Tokenizer(stopwords="none", stemmer="none")(["The cats play"]) == [
        ["the", "cats", "play"]
    ]


def test_empty_whitespace_and_one_letter_texts_have_no_tokens() -> None:
    assert Tokenizer()(["", "   ", "a I", "!!"]) == [[], [], [], []]
    assert Tokenizer()([]) == []
