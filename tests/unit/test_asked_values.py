"""Answers giving another kind of value than asked: a count for a price, a template's address for the user's own."""

from __future__ import annotations

from rag.answer.asked_values import gives_other_kind, prices_unread, read_otherwise
from rag.answer.attribution import Passage
from rag.answer.evidence import is_borne_out

PRICE = "How much did it cost to repair my laptop's broken screen?"
BLOG = "What is the address of my own WordPress blog that uses the Sela theme?"


def test_a_count_of_something_else_is_no_price() -> None:
    # Qwen2.5-Coder 0.5B's, over vaultofknowledge (stop 44): a resolution copied for a repair's cost.
    screen = Passage("[[Display Concepts#Resolution]]", "A 1366x768 screen has 1366 points horizontally.")
    assert gives_other_kind("1366 points horizontally", question=PRICE)
    assert not is_borne_out("1366 points horizontally", [screen], question=PRICE)
    assert gives_other_kind("It took 2 hours and 3 visits.", question=PRICE)


CASSETTE = "How much did the new cassette for my commuter bike cost?"
# sample_vault's Bike Repair Notes: no price of a new cassette, one of a cassette saved
COGS = Passage(
    "[[Bike Repair Notes#For next time]]", "Cassette replacement is probably due next spring (Shimano HG400, 11–34)."
)
CHECKER = Passage(
    "[[Bike Repair Notes#For next time]]", "Measure the chain every 1,000 km. A €10 chain checker saves a €40 cassette."
)


def test_a_price_must_be_one_the_notes_give_as_money() -> None:
    # the 0.5B on sample_vault (stop 59): the cogs' "11–34" given as the new cassette's price
    assert prices_unread("The new cassette for my commuter bike cost €11.", [COGS, CHECKER], question=CASSETTE)
    assert not is_borne_out("The new cassette for my commuter bike cost €11.", [COGS, CHECKER], question=CASSETTE)
    assert prices_unread("It cost 1,000 euros.", [COGS, CHECKER], question=CASSETTE)  # the notes' 1,000 are km
    # an amount the notes give as money, however written
    for answer in ("It cost €40.", "40 euros", "EUR 40.00", "$40", "€10 and €40"):
        assert not prices_unread(answer, [COGS, CHECKER], question=CASSETTE), answer
    assert not prices_unread("1.500 €", [Passage("[[Budget]]", "Bike budget: €1,500 a year.")], question=CASSETTE)
    assert not prices_unread("It cost 11.", [COGS], question=CASSETTE)  # no currency: a bare number is judged elsewhere
    assert not prices_unread("€11", [COGS], question="What sizes does the cassette come in?")  # no price asked


def test_a_currency_or_a_bare_number_may_be_a_price() -> None:
    for answer in ("It cost €120.", "120 EUR", "About 120 euros for 2 parts.", "50 bucks", "It cost 1,200 for parts."):
        assert not gives_other_kind(answer, question=PRICE), answer
    assert not gives_other_kind("The repair cost 120.", question=PRICE)
    assert not gives_other_kind("Nothing, it was under warranty.", question=PRICE)  # no number: other rules judge
    assert not gives_other_kind("1366 points horizontally", question="How wide is the screen?")  # no price asked
    # A cost noted on a day: the date is no number counting something.
    assert not gives_other_kind("On 2026-03-04 it cost 80.", question=PRICE)


def test_a_streamed_opening_ending_on_a_number_waits_for_what_it_counts() -> None:
    assert gives_other_kind("The repair cost 1366", question=PRICE, is_whole=False)
    assert not gives_other_kind("The repair cost 1366 €", question=PRICE, is_whole=False)


def test_a_templates_address_is_no_address_of_the_users_own() -> None:
    how_to = Passage(
        "[[How I revived Sela#For a site that once had Sela (classic interface URL trick)]]",
        "I hear that it should be possible by visiting this URL: "
        "your-blog.wordpress.com/wp-admin/themes.php?search=sela",
    )
    assert gives_other_kind("your-blog.wordpress.com", question=BLOG)
    assert not is_borne_out("your-blog.wordpress.com", [how_to], question=BLOG)
    for template in ("https://example.com/blog", "<your-site>.wordpress.com", "Visit {blog}.wordpress.com/wp-admin"):
        assert gives_other_kind(template, question=BLOG), template
    # An address of the user's own, or one template beside it, is judged as any answer is.
    assert not gives_other_kind("sela-notes.wordpress.com", question=BLOG)
    assert not gives_other_kind("sela-notes.wordpress.com (not your-blog.wordpress.com)", question=BLOG)
    assert not gives_other_kind("your-blog.wordpress.com", question="What does the Sela how-to tell me to visit?")
    assert not gives_other_kind("The notes don't give it.", question=BLOG)  # no address at all


def test_the_tail_of_a_templates_address_is_no_address_of_the_users_own() -> None:
    how_to = Passage(
        "[[How I revived Sela]]", "Visit this URL: your-blog.wordpress.com/wp-admin/themes.php?search=sela"
    )
    # the 0.5B on vaultofknowledge (stop 59): the template's host without its stand-in
    for answer in ("wordpress.com", "Your blog is at wordpress.com.", "themes.php"):
        assert read_otherwise(answer, [how_to], question=BLOG), answer
    assert not is_borne_out("wordpress.com", [how_to], question=BLOG)
    # the notes give it outside a template too, or not at all (then other rules judge it)
    own = Passage("[[Blog]]", "My blog lives at sela-fan.wordpress.com since 2019.")
    assert not read_otherwise("wordpress.com", [how_to, own], question=BLOG)
    assert not read_otherwise("https://myblog.wordpress.com", [how_to], question=BLOG)
    assert not read_otherwise(
        "wordpress.com", [how_to], question="Which host does the Sela how-to use?"
    )  # no address asked


def test_paying_spending_or_charging_asked_with_a_time_or_a_count_asks_no_price() -> None:
    # From the review of stop 44: these were withheld, copied word for word from their notes.
    for question, answer in (
        ("How many hours did I spend on the thesis last week?", "You spent 14 hours on the thesis."),
        ("How many days of paid leave do I get?", "You get 28 days of paid leave a year."),
        ("How long does it take to charge the e-bike battery?", "A full charge takes 4 hours."),
    ):
        assert not gives_other_kind(answer, question=question), question
    assert gives_other_kind("3 visits", question="How much did I pay for the repair?")


def test_a_number_that_can_be_no_date_is_no_answer_to_when() -> None:
    # The 0.5B on kepano's vault (stop 57), asked when Out of Control was published: its ISBN, from the record's row
    # above "year: 1992".
    question = "Which book by Kevin Kelly have I noted, and when was it published?"
    assert gives_other_kind("1. Out of Control\n2. 201483408", question=question)
    assert gives_other_kind("201483408", question="When was it published?")
    for dated in ("1992", "2. In 1992.", "2021-04-15", "at 14:00", "After 2 weeks", "20230912", "In April."):
        assert not gives_other_kind(dated, question="When was it published?"), dated
    assert not gives_other_kind("201483408", question="What is its ISBN?")
    assert gives_other_kind("It was published in 2014", question="When was it published?", is_whole=False)


def test_a_phone_number_or_an_email_address_asked_must_be_given_in_its_shape() -> None:
    # The 0.5B on kepano's vault (stop 61), asked a phone number no note gives: a clipping's date from her row.
    question = "What is Steph Ango's phone number?"
    for wrong in ("2023-09-12", "Steph Ango's phone number is 12 September 2023.", "1992", "kepano"):
        assert gives_other_kind(wrong, question=question), wrong
    for number in ("+49 30 1234567", "(555) 123-4567", "030/123 45 67", "Call 0171-2345678.", "555 1234"):
        assert not gives_other_kind(number, question=question), number
    assert not gives_other_kind("An iPhone 12.", question="Which phone do I use?")
    assert gives_other_kind("Die Nummer ist 2024-01-05.", question="Wie ist die Telefonnummer von Oma?")
    assert gives_other_kind("kepano", question="What is Steph's email address?")
    assert gives_other_kind("Her email is 2023-09-12.", question="What's her email?")
    for address in ("steph@stephango.com", "steph [at] stephango [dot] com"):
        assert not gives_other_kind(address, question="What is Steph's email address?"), address
    assert not gives_other_kind("Thunderbird", question="Which email client do I use?")
    # Shown whole, a streamed opening is not judged by shape: "+49 30" may go on.
    assert not gives_other_kind("+49 30", question=question, is_whole=False)
