"""Addresses: the zip belongs to the city and state, the line is in US order, one seed one address."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from envfactory_mcp.tasks.addresses import (
    CANDIDATE_CITIES,
    USAddress,
    candidate_zips,
    format_us_address,
    is_possible_address,
    random_us_address,
    us_addresses,
)

LINE = re.compile(
    r"^\d+ [A-Z][a-z]+ [A-Z][a-z]+(, (Apt|Suite|Unit) \w+)?, [A-Z][A-Za-z .]+, [A-Z]{2} \d{5}, USA$"
)


def test_a_zip_must_belong_to_its_city_and_state():
    assert is_possible_address("Boston", "MA", "02108")
    assert is_possible_address("boston", "ma", "02127")  # USPS says South Boston, and accepts Boston
    assert is_possible_address("Austin", "TX", "78701-1234")
    assert not is_possible_address("Denver", "TX", "80202")  # a Denver zip, in the wrong state
    assert not is_possible_address("Madison", "IL", "53780")  # the old seed's made-up zip
    assert not is_possible_address("Madison", "WI", "60601")  # a Chicago zip
    assert not is_possible_address("Chicago", "IL", "6060")
    assert not is_possible_address("Chicago", "IL", "abcde")
    assert not is_possible_address("Chicago", "IL", None)  # type: ignore[arg-type]


def test_every_candidate_city_has_sorted_possible_zips():
    assert list(CANDIDATE_CITIES) == sorted(CANDIDATE_CITIES)
    for city, state in CANDIDATE_CITIES:
        zips = candidate_zips(city, state)
        assert len(zips) >= 5 and list(zips) == sorted(zips), city
        assert all(is_possible_address(city, state, z) for z in zips[:3] + zips[-3:]), city


def test_the_line_is_in_us_order_and_leaves_out_an_empty_unit():
    address = USAddress("1743 Chestnut St", "", "Boston", "MA", "02127")
    assert address.line() == "1743 Chestnut St, Boston, MA 02127, USA"
    assert format_us_address("1743 Chestnut St", "Apt 4", "Boston", "MA", "02127", "USA") == (
        "1743 Chestnut St, Apt 4, Boston, MA 02127, USA"
    )
    assert format_us_address(city="Boston", state="MA") == "Boston, MA"
    assert address.as_row() == {
        "address1": "1743 Chestnut St",
        "address2": "",
        "city": "Boston",
        "state": "MA",
        "country": "USA",
        "zip": "02127",
    }


def test_one_seed_gives_one_address_list():
    first = us_addresses(random.Random(3), 20)
    assert first == us_addresses(random.Random(3), 20)
    assert first != us_addresses(random.Random(4), 20)
    rng = random.Random(3)
    assert first == [random_us_address(rng) for _ in range(20)]
    assert len({a.city for a in first}) > 5  # draws cover many cities


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_random_addresses_are_possible_and_well_formed(seed):
    address = random_us_address(random.Random(seed))
    assert is_possible_address(address.city, address.state, address.zip)
    assert LINE.match(address.line()), address.line()
