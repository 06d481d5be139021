"""`names.particles` against a plain statement of BibTeX's rule (Patashnik, "BibTeXing",
section 4: the von part runs from the first to the last word that starts in lower case,
never the last word), for any words (hypothesis); its shortcut for names without a
particle must give what the rule gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bib.readers.names import particles

word = st.sampled_from(["van", "de", "la", "von", "e.", "Van", "Laan", "Q.", "Jörg", "(John", "é"])
words = st.lists(word, min_size=0, max_size=4).map(" ".join)


def _lower(text: str) -> bool:
    return next((c for c in text if c.isalpha()), "").islower()


def _reference(family: str, given_name: str) -> tuple[str, str, str, str]:
    fam, giv = family.split(), given_name.split()
    lower = [i for i, w in enumerate(fam[:-1]) if _lower(w)]
    von = lower[-1] + 1 if fam and _lower(fam[0]) and lower else 0
    kept = len(giv)
    while kept > 1 and _lower(giv[kept - 1]) and not giv[kept - 1].endswith("."):
        kept -= 1
    return (
        " ".join(fam[von:]),
        " ".join(giv[:kept]),
        " ".join(fam[:von]),
        " ".join(giv[kept:]),
    )


@given(family=words.filter(bool), given_name=words)
def test_particles_follow_bibtex_s_rule(family, given_name):
    found = particles(family, given_name)
    expected = _reference(family, given_name)
    if found is None:
        assert expected[2:] == ("", "")
    else:
        assert (found.family, found.given, found.non_dropping, found.dropping) == expected
        assert found.non_dropping or found.dropping
