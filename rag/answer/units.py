"""Units of measure as the answer check compares them: each written form to one name.

A number is evidence for another only with the same unit: the 0.5B answered "How long does the leftover nectarine
tart keep in the fridge?", which no note says, with "11 days", and was shown "This recipe is scaled for an 11 inch
tart pan." as what bore it out, as "days" and "inch" were no units to the check (only words of three letters or
fewer were) and both read as a bare 11. Units written out are read here, in English and German, and the forms of
one unit are one ("14 hours", "14 hrs", "14 h", "14 Stunden"), so "11 days" and "11 inch" no longer meet, while
"14 hours" still meets "14 h".
"""

from __future__ import annotations

# Each unit's name as compared (its usual abbreviation) and the words that write it. Words of three letters or fewer
# not listed here stay units as written ("25 cm", "3 pm").
_FORMS = {
    "s": ("sec", "secs", "second", "seconds", "sekunde", "sekunden"),
    "min": ("mins", "minute", "minutes", "minuten"),
    "h": ("hr", "hrs", "hour", "hours", "stunde", "stunden", "std"),
    "d": ("day", "days", "tag", "tage", "tagen"),
    "wk": ("wks", "week", "weeks", "woche", "wochen"),
    "mo": ("month", "months", "monat", "monate", "monaten"),
    "yr": ("yrs", "year", "years", "jahr", "jahre", "jahren"),
    "inch": ("inches", "zoll"),
    "ft": ("foot", "feet"),
    "mi": ("mile", "miles", "meile", "meilen"),
    "m": ("meter", "meters", "metre", "metres"),
    "km": ("kilometer", "kilometers", "kilometre", "kilometres"),
    "cm": ("centimeter", "centimeters", "centimetre", "centimetres", "zentimeter"),
    "mm": ("millimeter", "millimeters", "millimetre", "millimetres"),
    "g": ("gram", "grams", "gramm", "gramme", "grammes"),
    "kg": ("kilo", "kilos", "kilogram", "kilograms", "kilogramm"),
    "lb": ("lbs", "pound", "pounds", "pfund"),
    "oz": ("ounce", "ounces", "unze", "unzen"),
    "l": ("liter", "liters", "litre", "litres"),
    "ml": ("milliliter", "milliliters", "millilitre", "millilitres"),
    "cup": ("cups", "tasse", "tassen"),
    "tbsp": ("tablespoon", "tablespoons", "esslöffel", "el"),
    "tsp": ("teaspoon", "teaspoons", "teelöffel", "tl"),
    "kcal": ("calorie", "calories", "kalorien"),
}
_NAME_OF = {form: name for name, forms in _FORMS.items() for form in (name, *forms)}

SHORT_UNIT_LETTERS = 3  # a word this short after a number is taken for its unit even when not listed ("25 cm")


def measure_unit(word: str) -> str | None:
    """Return the name of the unit `word` writes ("hours" -> "h"), or None when it is no unit of measure known here.

    Case and spaces do not count ("Hours", "HRS").
    """
    return _NAME_OF.get(word.replace(" ", "").casefold())
