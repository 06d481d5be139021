"""bib.latex: one test per escaping rule (docs/formats.md lists the rules)."""

from __future__ import annotations

import pytest

from bib.latex import clean, decode, escape, link, to_latex, to_text, url_value, verbatim_value


@pytest.mark.parametrize(
    ("char", "latex"),
    [
        ("&", r"\&"),
        ("%", r"\%"),
        ("$", r"\$"),
        ("#", r"\#"),
        ("_", r"\_"),
        ("{", r"\textbraceleft{}"),
        ("}", r"\textbraceright{}"),
        ("~", r"\textasciitilde{}"),
        ("^", r"\textasciicircum{}"),
        ("\\", r"\textbackslash{}"),
        ("<", r"\textless{}"),
        (">", r"\textgreater{}"),
        ("|", r"\textbar{}"),
    ],
)
def test_each_special_character_is_escaped_outside_math(char: str, latex: str) -> None:
    assert to_latex(f"a {char} b") == f"a {latex} b"
    assert escape(f"a {char} b") == f"a {latex} b"


def test_stray_braces_never_become_backslash_brace() -> None:
    out = to_latex("x}, title = {PWNED}} @misc{evil,")
    assert r"\}" not in out and r"\{" not in out
    assert out.count("{") == out.count("}")


def test_balanced_inline_math_is_kept() -> None:
    assert to_latex(r"over 6$\times$ faster") == r"over 6$\times$ faster"
    assert to_latex(r"${\sim}17.6\%$ of") == r"${\sim}17.6\%$ of"
    assert to_latex(r"up to $\mathbf{20\times}$") == r"up to $\mathbf{20\times}$"


def test_paren_math_is_kept_as_dollar_math() -> None:
    assert to_latex(r"a \(x^2\) b") == r"a $x^2$ b"


@pytest.mark.parametrize(
    "text",
    [
        r"$\input{x}$",
        r"$a#b$",
        r"$x^$",
        r"$\mathbb{R}$",
        r"$\frac$",
        r"${a$",
        r"$a\\b$",
        "$a\u00e9$",
    ],
)
def test_harmful_or_unbalanced_math_is_escaped_as_text(text: str) -> None:
    out = to_latex(text)
    assert out.startswith(r"\$")
    assert decode(out) == to_text(text)


def test_dollar_amounts_are_not_math() -> None:
    assert to_latex("costs $5 and $10") == r"costs \$5 and \$10"


@pytest.mark.parametrize(
    "command",
    [
        r"\input{/etc/passwd}",
        r"\write18{ls}",
        r"\catcode`\{=1",
        r"\def\x{y}",
        r"\csname x\endcsname",
    ],
)
def test_dangerous_commands_print_literally(command: str) -> None:
    out = to_latex(command)
    assert out.startswith(r"\textbackslash{}")
    assert decode(out) == to_text(command)
    assert decode(out).startswith(command.split("{")[0].split("`")[0])


def test_whitelisted_formatting_commands_are_kept() -> None:
    assert to_latex(r"\textbf{a} \emph{b} \texttt{c}") == r"\textbf{a} \emph{b} \texttt{c}"


def test_escaped_specials_in_source_stay_escaped() -> None:
    assert to_latex(r"100\% \& \_") == r"100\% \& \_"
    assert to_text(r"100\% \& \_") == "100% & _"


def test_url_command_with_safe_url_is_kept() -> None:
    assert to_latex(r"see \url{https://github.com/a_b/c}") == r"see \url{https://github.com/a_b/c}"


def test_url_with_percent_or_hash_is_written_as_text() -> None:
    # url.sty cannot take % or # inside another command's argument (biblatex fields are one)
    assert to_latex(r"\url{https://x.org/a%20b#f}") == r"https://x.org/a\%20b\#f"


@pytest.mark.parametrize(
    ("markdown", "latex"),
    [
        ("**bold**", r"\textbf{bold}"),
        ("*emph*", r"\emph{emph}"),
        ("_emph_", r"\emph{emph}"),
        ("`code_x`", r"\texttt{code\_x}"),
        ("***Feature* (FAC)**", r"\textbf{\emph{Feature} (FAC)}"),
        ("**M**itigating", r"\textbf{M}itigating"),
    ],
)
def test_markdown_emphasis_becomes_latex(markdown: str, latex: str) -> None:
    assert to_latex(markdown) == latex


def test_markdown_link_becomes_text_and_url() -> None:
    assert (
        to_latex("[the repo](https://github.com/a/b)") == r"the repo (\url{https://github.com/a/b})"
    )


def test_markdown_link_to_itself_is_one_url() -> None:
    url = "https://github.com/LAMDA-NeSy/OpenAgent"
    assert to_latex(f"[{url}]({url})") == rf"\url{{{url}}}"


def test_intraword_underscores_are_not_emphasis() -> None:
    assert to_latex("snake_case_name") == r"snake\_case\_name"


def test_unmatched_asterisks_stay_literal() -> None:
    assert to_latex("V* Bench and 5 * 3") == "V* Bench and 5 * 3"


def test_control_characters_and_nul_are_removed() -> None:
    assert to_latex("a\x00b\x07c\x1b") == "abc"


def test_whitespace_collapses_to_one_paragraph() -> None:
    assert clean("a\n\nb\tc\u2028d  e ") == "a b c d e"


def test_acronyms_and_mixed_case_words_are_protected_in_titles() -> None:
    out = to_latex("USMoE: Unified Sparse Mixture with LLM and dLLMs", protect=True)
    assert out == "{USMoE}: Unified Sparse Mixture with {LLM} and {dLLMs}"


def test_math_in_titles_is_protected() -> None:
    assert to_latex(r"A 6$\times$ Speedup", protect=True) == r"A 6{$\times$} Speedup"


def test_ascii_turns_accents_into_braced_macros() -> None:
    assert to_latex("Müller Łukasz François", ascii=True) == r"M{\"u}ller {\L}ukasz Fran{\c{c}}ois"


def test_ascii_replaces_characters_without_macro_by_question_mark() -> None:
    assert to_latex("中文 😀", ascii=True) == "?? ?"


def test_ascii_refuses_macros_that_need_packages() -> None:
    assert to_latex("Ж", ascii=True) == "?"


def test_ascii_falls_back_to_compatibility_decomposition() -> None:
    assert to_latex("ℝ ﬁ", ascii=True) == "R fi"  # noqa: RUF001


def test_ascii_output_is_ascii() -> None:
    assert to_latex("naïve café – “quoted” … α≤β", ascii=True).isascii()  # noqa: RUF001


def test_utf8_output_keeps_unicode() -> None:
    assert to_latex("naïve café") == "naïve café"


def test_latex_accent_commands_in_source_become_letters() -> None:
    assert to_text(r"\"o \'{e} \c{c}") == "ö é ç"


def test_plain_text_renders_math() -> None:
    assert to_text(r"over 6$\times$ and ${\sim}17.6\%$") == "over 6× and ∼17.6%"  # noqa: RUF001


def test_plain_text_strips_markdown() -> None:
    assert to_text("we introduce **USMoE**, a *new* `tool`") == "we introduce USMoE, a new tool"


def test_plain_text_keeps_link_targets() -> None:
    assert to_text("[repo](https://x.org/r)") == "repo (https://x.org/r)"


def test_url_field_keeps_percent_and_hash_but_encodes_breaking_characters() -> None:
    assert url_value("https://x.org/a%20b/ c{d}\\e^f#frag") == (
        "https://x.org/a%20b/%20c%7Bd%7D%5Ce%5Ef#frag"
    )


def test_url_field_encodes_lone_percent_and_non_ascii() -> None:
    assert url_value("https://x.org/100%/ü") == "https://x.org/100%25/%C3%BC"


def test_verbatim_value_keeps_doi_characters() -> None:
    assert verbatim_value("10.1002/(SICI)1097<433::AID>3.0.CO;2-L") == (
        "10.1002/(SICI)1097<433::AID>3.0.CO;2-L"
    )


def test_link_in_note_uses_url_command() -> None:
    assert link("https://github.com/a/b") == r"\url{https://github.com/a/b}"


def test_deep_nesting_stays_bounded() -> None:
    text = r"\textbf{" * 5000 + "x" + "}" * 5000
    out = to_latex(text)
    assert out.count("{") == out.count("}")


def test_long_hostile_text_is_linear_enough() -> None:
    text = "$a *b _c `d [e \\textbf{f " * 20000
    out = to_latex(text)
    assert out.count("{") == out.count("}")


def test_urls_in_titles_are_not_wrapped_in_case_changing_braces() -> None:
    # `{\url{...}}` is a BibTeX "special character" whose letters plain.bst lowercases
    assert to_latex(r"See \url{https://GitHub.com/ABC}", protect=True) == (
        r"See \url{https://GitHub.com/ABC}"
    )


def test_plain_text_shows_tex_ligatures_as_the_characters_tex_prints():
    expected = "pages 1\u201310 \u2014 \u201cquoted\u201d and x\u2013y"
    assert to_text("pages 1--10 --- ``quoted'' and *x--y*") == expected


def test_plain_text_leaves_ligatures_in_urls_alone():
    assert to_text("see <https://a--b.org/x''> and [a--b](https://c--d.org)") == (
        "see https://a--b.org/x'' and a\u2013b (https://c--d.org)"
    )
