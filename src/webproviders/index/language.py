"""A page's language, for the PostgreSQL store's choice of text search configuration.

The language a page declares (``<html lang>``, which the ``http`` provider passes on as
``metadata.language``) wins. A page that declares none is judged by its commonest words: the
language whose function words make up a clear share of the first words is taken, otherwise
none (the store then uses ``simple``, which stems nothing and drops no word).
"""

from __future__ import annotations

import re

from .pages import IndexedPage

#: ISO 639-1 codes and the PostgreSQL text search configuration of each (the Snowball ones).
CONFIGS = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "da": "danish", "nl": "dutch",
    "en": "english", "fi": "finnish", "fr": "french", "de": "german", "el": "greek", "hi": "hindi",
    "hu": "hungarian", "id": "indonesian", "ga": "irish", "it": "italian", "lt": "lithuanian",
    "ne": "nepali", "no": "norwegian", "nb": "norwegian", "nn": "norwegian", "pt": "portuguese",
    "ro": "romanian", "ru": "russian", "sr": "serbian", "es": "spanish", "sv": "swedish", "ta": "tamil",
    "tr": "turkish", "yi": "yiddish",
}
#: The commonest function words of the languages told apart without a declaration.
_FUNCTION_WORDS = {
    "en": "the and of to is in that it for was with as on are this be by not or",
    "de": "der die und das ist nicht ein eine zu den mit sich auf für von dem des auch",
    "fr": "le la les et des est une du que pour dans pas sur qui au avec ce il sont",
    "es": "el la los las y que en es por una para con del se no al lo como más",
    "it": "il la di che è per una non sono del della gli le con si da anche nel",
    "pt": "o os as que do da em um uma para com não se na no por mais dos",
    "nl": "het een en van is dat op te zijn niet met voor die ook aan er maar",
    "sv": "och att det som är på för med inte av den till har om ett jag var",
    "ru": "и в не на что я с он как это по но из к у же то за",
}
_WORDS = {code: frozenset(words.split()) for code, words in _FUNCTION_WORDS.items()}
_WORD = re.compile(r"\w+")
#: Words looked at, the least share of them that must be function words, and by how much
#: the first language must lead the second.
_SAMPLE, _SHARE, _LEAD = 300, 0.08, 1.5


def page_language(page: IndexedPage) -> str | None:
    """The ISO 639-1 code of ``page``'s language, when declared or clear from its words."""
    if page.language:
        return page.language.split("-")[0].split("_")[0].strip().lower() or None
    words = [w.lower() for w in _WORD.findall(page.content[:4000])][:_SAMPLE]
    if not words:
        return None
    counts = sorted(((sum(w in vocabulary for w in words), code) for code, vocabulary in _WORDS.items()), reverse=True)
    (best, code), (second, _) = counts[0], counts[1]
    if best >= _SHARE * len(words) and best >= _LEAD * second:
        return code
    return None
