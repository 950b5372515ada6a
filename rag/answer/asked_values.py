"""Answers giving another kind of value than the one asked for: a price, an address, a date, a temperature.

Small models answer a near miss with a figure or an address copied from nearby, and the word test passes it, as the
note holds it. Over vaultofknowledge, Qwen2.5-Coder 0.5B answered "How much did it cost to repair my laptop's broken
screen?" (no note says) with "1366 points horizontally", a screen's resolution; and "What is the address of my own
WordPress blog that uses the Sela theme?" (no note says either) with "your-blog.wordpress.com", the placeholder of a
how-to's URL ("visiting this URL: your-blog.wordpress.com/wp-admin/themes.php?search=sela").

Both tests are narrow: a price is refused only when every number of the answer counts something else (a unit of
measure or a plural noun after it: "points", "hours", "times") and no currency is named ("€", "USD", "euros",
"bucks"); a bare "50" may be a price. An address is refused only when every address the answer gives is a template's
("your-…", "example.com", "mydomain", "<…>", "{…}").

Against the passages read (`read_otherwise`): a price the answer gives with its currency must be one the notes give
so (asked what the new cassette for a bike cost, which no note says, the 0.5B answered "€11", the smallest cog of the
old one's "11–34"); an address must be one the notes give outside a template's (asked the address of the user's own
blog, the 0.5B answered "wordpress.com", the tail of "your-blog.wordpress.com/wp-admin/themes.php?search=sela").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import NOT_UNITS, Passage
from rag.answer.dates import dates_in
from rag.answer.measure_kinds import DURATION, TEMPERATURE, kinds_asked, kinds_given
from rag.answer.question_kind import asks_for_value
from rag.answer.units import measure_unit
from rag.notes.moment import iso_day

# A question asking what something cost, in English or German: by a word for a price, or by paying and "how much"
# ("How much did I pay for …?"); not one asking for a time or a count ("How many hours did I spend …?", "How long
# does it take to charge …?", "How many days of paid leave …?").
_PRICE_WORD = re.compile(r"\b(?:cost|costs|price[sd]?|fees?|kostet|kosten|kostete|preis)\b", re.IGNORECASE)
_PAYING = re.compile(r"\b(?:pay|paid|spend|spent|charged?|bezahlt|gezahlt)\b", re.IGNORECASE)
_HOW_MUCH = re.compile(r"\bhow much\b|\bwie viel\b", re.IGNORECASE)
_ASKS_TIME_OR_COUNT = re.compile(
    r"\bhow (?:many|long|often)\b|\bwie (?:viele|lange|oft)\b"
    r"|\b(?:time|hours?|minutes?|days?|weeks?|months?|years?|zeit|stunden?|minuten?|tage?n?|wochen?|monate?n?|jahre?n?)\b",
    re.IGNORECASE,
)
_CURRENCY = re.compile(
    r"[€$£¥₹₽₩]|\b(?:eur|euros?|usd|dollars?|cents?|gbp|pounds?|pence|quid|bucks|jpy|yen|chf|francs?|franken"
    r"|inr|rupees?|rs|cny|rmb|yuan|krona|kronor|krone|kroner|sek|nok|dkk|pln|zlot[ysie]+|brl|reais|real|pesos?"
    r"|roubles?|rubles?|rub|lira|try|grand|k)\b",
    re.IGNORECASE,
)
# A question asking when, or for a year or a date: "When was it published?", "In which year …", "Wann …".
_ASKS_WHEN = re.compile(
    r"^\W*when\b|\bwhen\s+(?:was|were|is|are|did|do|does|will|had|has|have)\b|\b(?:what|which)\s+(?:year|date)\b"
    r"|^\W*wann\b|\bin welchem jahr\b",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_LIST_NUMBERS = re.compile(r"^[ \t]*\d{1,9}[.)][ \t]+", re.MULTILINE)
YEAR_DIGITS = 4
# A number and the word after it, if one follows ("1366 points", "50", "1,200 for").
_NUMBER_AND_WORD = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?:\s*(?P<word>[^\W\d_]+))?")
_ENDS_ON_NUMBER = re.compile(r"\d[.,]?\s*$")
# A word of the answer that is an address: a host, a path, an e-mail address ("your-blog.wordpress.com", "/etc").
_ADDRESS = re.compile(r"[\w>}-]\.[^\W\d_]{2,}|/[\w.<>{}-]+|@[\w-]+\.\w")
# A template's stand-in in an address: "your-blog", "yoursite", "example.com", "mydomain", "<user>", "{name}".
_PLACEHOLDER = re.compile(
    r"(?<![^\W\d_])your[-_]?[^\W\d_]*|(?<![^\W\d_])(?:example|mydomain|mysite|my-site|domain\.tld|placeholder)"
    r"|(?<![^\W\d_])x{3,}(?![^\W\d_])|<[^<>\s]+>|\{[^{}\s]+\}",
    re.IGNORECASE,
)


def gives_other_kind(answer: str, *, question: str, is_whole: bool = True) -> bool:
    """Return True when `answer` gives another kind of value than `question` asks for: no price, a template address.

    `is_whole` False: `answer` is a streamed opening; one ending on a number has not said yet what the number counts.
    """
    if _asks_for_price(question) and _counts_something_else(answer, is_whole=is_whole):
        return True
    if _ASKS_WHEN.search(question) and _dates_nothing(answer, is_whole=is_whole):
        return True
    if is_whole and _gives_other_measure(answer, question):  # "30 minutes" asked the oven's temperature
        return True
    if is_whole and _gives_no_contact(answer, question):  # "2023-09-12" asked a phone number
        return True
    return asks_for_value(question) and _gives_only_templates(answer)


# A question asking for a number to call or an e-mail address ("What is Steph's phone number?", "Wie ist die
# Telefonnummer …?", "What's her email?"), not for a phone or a mail ("Which phone do I use?", "my email client").
_ASKS_PHONE = re.compile(
    r"\b(?:what|which|wie|welche[rsnm]?)\b[^?]*(?:\b(?:phone|telephone|mobile|cell|fax)\s*(?:number|no\b|#)"
    r"|(?:telefon|handy|mobil|fax)nummer)",
    re.IGNORECASE,
)
_ASKS_EMAIL = re.compile(
    r"\b(?:what|which|wie|welche[rsnm]?)\b[^?]*\be-?mail(?:\s*address|-?adresse)?\b(?=\s*(?:\?|$|of\b|for\b|von\b))",
    re.IGNORECASE,
)
# A number to call as people write them: "+49 30 1234567", "(555) 123-4567", "030/123 45 67", "0171-2345678".
_PHONE = re.compile(r"\+?\(?\d[\d ()./-]{4,}\d")
MIN_PHONE_DIGITS = 5  # fewer is an extension or a count, not a number to call from outside
_EMAIL = re.compile(r"[\w.+-]+\s*(?:@|\[at\]|\(at\))\s*[\w-]+(?:\.|\s*\[dot\]\s*)\w", re.IGNORECASE)


def _gives_no_contact(answer: str, question: str) -> bool:
    """Return True when `question` asks a phone number or an e-mail address and `answer` gives nothing of its shape.

    Asked "What is Steph Ango's phone number?", which no note of kepano-obsidian gives, the 0.5B answered
    "2023-09-12", a clipping's date from the row naming her: a date is no number to call.
    """
    if _ASKS_PHONE.search(question):
        _, undated = dates_in(answer)  # "2023-09-12" is a date, not a number of ten digits
        return not any(sum(char.isdigit() for char in found) >= MIN_PHONE_DIGITS for found in _PHONE.findall(undated))
    if _ASKS_EMAIL.search(question):
        return _EMAIL.search(answer) is None
    return False


def _gives_other_measure(answer: str, question: str) -> bool:
    """Return True when `question` asks a temperature or a length of time and `answer` gives only the other.

    Asked "What's the cooking temperature for the nectarine tart?", the 1.5B answered "… is 30 minutes."
    """
    asked = kinds_asked(question)
    if len(asked) != 1:
        return False
    given = kinds_given(answer, frozenset((TEMPERATURE, DURATION)))
    return bool(given) and not given & asked


def _dates_nothing(answer: str, *, is_whole: bool) -> bool:
    """Return True when `answer` gives numbers, none a date, a year or a time of day: "201483408", an ISBN.

    Asked when a book was published, the 0.5B answered with its ISBN, copied from the note's record above the year.
    A number of up to four digits may be a year ("1992") or a time ("14:00" is two); one of more digits is none.
    """
    dates, text = dates_in(_LIST_NUMBERS.sub("", answer))  # "2. 201483408": the item's number is no value
    if dates:
        return False
    if not is_whole and _ENDS_ON_NUMBER.search(text):
        return True  # not judged yet: the number may go on
    numbers = _DIGITS.findall(text)
    return bool(numbers) and all(len(number) > YEAR_DIGITS and not _is_compact_date(number) for number in numbers)


def _is_compact_date(number: str) -> bool:
    """Return True for a date written as eight digits ("20230912")."""
    return len(number) == 8 and iso_day(number) is not None


def _asks_for_price(question: str) -> bool:
    asks = bool(_PRICE_WORD.search(question) or (_PAYING.search(question) and _HOW_MUCH.search(question)))
    return asks and not _ASKS_TIME_OR_COUNT.search(question)


def _counts_something_else(answer: str, *, is_whole: bool) -> bool:
    """Return True when `answer` names no currency and every number of it counts something ("1366 points")."""
    _, text = dates_in(answer)
    if _CURRENCY.search(text):
        return False
    if not is_whole and _ENDS_ON_NUMBER.search(text):
        return True  # not judged yet: "It cost 40" may go on "0 euros" or " points"
    numbers = list(_NUMBER_AND_WORD.finditer(text))
    return bool(numbers) and all(_counts(number["word"]) for number in numbers)


def _counts(word: str | None) -> bool:
    """Return True when `word`, after a number, says what it counts: a unit of measure or a plural noun."""
    if not word or word.casefold() in NOT_UNITS:
        return False
    folded = word.casefold()
    return bool(measure_unit(folded)) or (len(folded) >= 4 and folded.endswith("s") and not folded.endswith("ss"))


def _gives_only_templates(answer: str) -> bool:
    """Return True when `answer` gives an address and every address it gives is a template's."""
    addresses = [word for word in answer.split() if _ADDRESS.search(word)]
    return bool(addresses) and all(_PLACEHOLDER.search(address) for address in addresses)


# An amount of money as written: a currency sign or code before or after the number ("€11", "11 €", "USD 40", "40
# euros", "$1,200.50"). A currency named in the sentence only ("it cost 40, in euros") is no such amount.
_SIGN = r"[€$£¥₹₽₩]|\b(?:eur|usd|gbp|chf|jpy|inr)\b"
_AMOUNT_NUMBER = r"(\d+(?:[.,]\d+)*)"
_AMOUNT = re.compile(
    rf"(?:{_SIGN})\s?{_AMOUNT_NUMBER}(?!\d)"
    rf"|(?<![\d.,]){_AMOUNT_NUMBER}\s?(?:{_SIGN}|\b(?:euros?|dollars?|pounds?|francs?|cents?|pence|bucks|quid|yen|rupees?)\b)",
    re.IGNORECASE,
)


_GROUPED = re.compile(r"\d{1,3}(?:[.,]\d{3})+")  # "1,500", "1.500.000": thousands, or a decimal


def read_otherwise(answer: str, passages: Sequence[Passage], *, question: str) -> bool:
    """Return True when `answer` gives a price or an address the passages give only as something else."""
    return prices_unread(answer, passages, question=question) or _template_parts(answer, passages, question=question)


def _template_parts(answer: str, passages: Sequence[Passage], *, question: str) -> bool:
    """Return True when asked for an address, each one `answer` gives stands in the passages only inside a template's.

    "wordpress.com" of "your-blog.wordpress.com/…"; an address no passage holds is judged elsewhere.
    """
    if not asks_for_value(question):
        return False
    addresses = [word.strip("`*_\"'.,;:!?()[]<>") for word in answer.split() if _ADDRESS.search(word)]
    if not addresses:
        return False
    words = [word for passage in passages for word in passage.text.split()]
    for address in addresses:
        holding = [word for word in words if address.casefold() in word.casefold()]
        if not holding or not all(_PLACEHOLDER.search(word) for word in holding):
            return False
    return True


def prices_unread(answer: str, passages: Sequence[Passage], *, question: str) -> bool:
    """Return True when `question` asks for a price and `answer` gives an amount of money no passage gives as one.

    A passage holding the number without a currency ("11–34", a cassette's cogs) bears out no price: the 0.5B
    answered "€11" so. Amounts are compared by value ("€40" is "40.00 EUR"), whatever the currency.
    """
    if not _asks_for_price(question):
        return False
    given = _amounts(answer)
    if not given:
        return False
    read = set().union(*(_amounts(passage.text) for passage in passages))
    return not given <= read


def _amounts(text: str) -> set[float]:
    """Return the values of the amounts of money `text` writes: "1,5" is 1.5; "1,500" and "1.500" are 1500 or 1.5."""
    values: set[float] = set()
    for match in _AMOUNT.finditer(text):
        number = match.group(1) or match.group(2)
        whole, _, fraction = re.sub(r"[.,](?=[^.,]*$)", "|", number).partition("|")
        values.add(float(f"{re.sub(r'[.,]', '', whole)}.{fraction or 0}"))
        if _GROUPED.fullmatch(number):
            values.add(float(re.sub(r"[.,]", "", number)))
    return values
