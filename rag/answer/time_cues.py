"""Whether a message needs today's date to be understood: "due tomorrow", "3 weeks ago", "how old is …", "next race".

The prompt tells the model today's date only then (agent/prompts.turn_preamble). A date the question does not need
is one more thing for a small model to copy: over sample_vault's golden set, the 0.5B answered "When did I stop
having coffee in the day to sleep better?" with the prompt's "2026-12-07 (Monday)", and on kepano-obsidian gave it as
a phone number; without the line it answered from the note ("no coffee after lunch"), and its false refusals there
went from 4 to 2 of 20 (docs/benchmarks.md, "At stop 60"). A question that only names a date ("What did I write on
13 November?") keeps the line: the year it means is worked out from today.
"""

from __future__ import annotations

import re

from rag.answer.days_named import names_a_day

# Words placing something relative to now (English and German), beside the days `names_a_day` reads: spans from or to
# now, what is still to come or overdue, what is recent or current, an age, the next or last of something, a time of
# today, the daily note.
_RELATIVE_TO_NOW = re.compile(
    r"\b(?:ago|since|until|till|left|remaining|upcoming|overdue|due|soon|recent(?:ly)?|latest|lately|now|nowadays"
    r"|current(?:ly)?|still|yet|anymore|old|older|age|aged|next|last|coming|past|previous|so\s+far|to\s+go"
    r"|this\s+(?:morning|afternoon|evening|season|spring|summer|autumn|fall|winter|quarter|time)"
    r"|how\s+long\s+(?:have|has|had)|daily|deadlines?"
    r"|seit|bis|noch|schon|jetzt|aktuell|derzeit|bald|neulich|kürzlich|zuletzt|fällig|überfällig|alt|älter"
    r"|nächste[nrs]?|letzte[nrs]?|kommende[nrs]?|vorige[nrs]?|täglich)\b",
    re.IGNORECASE,
)


def needs_today(message: str) -> bool:
    """Return True when `message` names a day or a time relative to today, so that its answer depends on the date."""
    return bool(_RELATIVE_TO_NOW.search(message)) or names_a_day(message)
