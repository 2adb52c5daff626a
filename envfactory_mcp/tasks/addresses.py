"""Real US addresses: city, state and zip that belong together, from the ``zipcodes`` table.

``zipcodes`` ships the USPS zip table inside the package (no network, no SQLite), so a
zip can be checked against its city and state offline. Random addresses draw the city
from a fixed, sorted list of candidate cities and the zip from that city's own zips,
sorted, so one ``random.Random`` seed gives one address whatever the table's internal
order. The street line is made up (number, name, suffix); only city/state/zip are real.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import zipcodes

# (city, state) as the table names the city, sorted; every one has dozens of zips.
CANDIDATE_CITIES: tuple[tuple[str, str], ...] = (
    ("Albuquerque", "NM"),
    ("Atlanta", "GA"),
    ("Austin", "TX"),
    ("Baltimore", "MD"),
    ("Boise", "ID"),
    ("Boston", "MA"),
    ("Charlotte", "NC"),
    ("Chicago", "IL"),
    ("Cleveland", "OH"),
    ("Columbus", "OH"),
    ("Denver", "CO"),
    ("Des Moines", "IA"),
    ("Detroit", "MI"),
    ("Houston", "TX"),
    ("Indianapolis", "IN"),
    ("Kansas City", "MO"),
    ("Las Vegas", "NV"),
    ("Los Angeles", "CA"),
    ("Louisville", "KY"),
    ("Madison", "WI"),
    ("Miami", "FL"),
    ("Milwaukee", "WI"),
    ("Minneapolis", "MN"),
    ("Nashville", "TN"),
    ("New Orleans", "LA"),
    ("New York", "NY"),
    ("Omaha", "NE"),
    ("Philadelphia", "PA"),
    ("Phoenix", "AZ"),
    ("Pittsburgh", "PA"),
    ("Portland", "OR"),
    ("Raleigh", "NC"),
    ("Richmond", "VA"),
    ("Sacramento", "CA"),
    ("Salt Lake City", "UT"),
    ("San Antonio", "TX"),
    ("San Diego", "CA"),
    ("San Francisco", "CA"),
    ("Seattle", "WA"),
    ("Tampa", "FL"),
    ("Tucson", "AZ"),
    ("Tulsa", "OK"),
)
STREET_NAMES = (
    "Maple",
    "Oak",
    "Cedar",
    "Pine",
    "Elm",
    "Lakeview",
    "Hillcrest",
    "River",
    "Sunset",
    "Park",
    "Willow",
    "Chestnut",
    "Highland",
    "Meadow",
    "Bay",
    "Forest",
    "Washington",
    "Lincoln",
    "Jefferson",
    "Franklin",
    "Madison",
    "Spring",
    "Church",
    "Mill",
    "Walnut",
    "Birch",
    "Sycamore",
    "Magnolia",
    "Ridge",
    "Valley",
    "Orchard",
    "Harbor",
    "Prospect",
    "Summit",
    "Grant",
    "Juniper",
)
STREET_SUFFIXES = ("St", "Ave", "Rd", "Ln", "Dr", "Blvd", "Way", "Ct", "Pl", "Ter")


@dataclass(frozen=True)
class USAddress:
    address1: str
    address2: str  # "" when there is none
    city: str
    state: str
    zip: str
    country: str = "USA"

    def as_row(self) -> dict[str, str]:
        """The address as the columns of a seed row (address1, address2, city, state, country, zip)."""
        return {
            "address1": self.address1,
            "address2": self.address2,
            "city": self.city,
            "state": self.state,
            "country": self.country,
            "zip": self.zip,
        }

    def line(self) -> str:
        """'1743 Chestnut St, Apt 4, Boston, MA 02108, USA'."""
        return format_us_address(self.address1, self.address2, self.city, self.state, self.zip, self.country)


# The parts of an address as tools name them, in the order a US address is written.
ADDRESS_PARTS: tuple[str, ...] = ("address1", "address2", "city", "state", "zip", "country")


def format_us_address(
    address1: str = "", address2: str = "", city: str = "", state: str = "", zip: str = "", country: str = ""
) -> str:
    """One address line in US order: street, unit, city, 'STATE ZIP', country; empty parts left out."""
    region = " ".join(p for p in (state, zip) if p)
    return ", ".join(p for p in (address1, address2, city, region, country) if p)


def is_possible_address(city: str, state: str, zip: str) -> bool:
    """Whether ``zip`` (5 digits, or ZIP+4) is an active zip of ``city`` in ``state``: its
    USPS city or one of the city names the USPS accepts for it (02127 is 'South Boston',
    and 'Boston' is accepted). Case-insensitive; a malformed zip is simply not possible."""
    if not isinstance(zip, str) or not isinstance(city, str) or not isinstance(state, str):
        return False
    try:
        records = zipcodes.matching(zip.strip())
    except (TypeError, ValueError):
        return False
    wanted_city, wanted_state = city.strip().casefold(), state.strip().upper()
    for record in records:
        if not record.get("active") or record.get("state") != wanted_state:
            continue
        names = [record.get("city", ""), *record.get("acceptable_cities", [])]
        if wanted_city in (name.casefold() for name in names):
            return True
    return False


_ZIPS: dict[tuple[str, str], tuple[str, ...]] = {}


def candidate_zips(city: str, state: str) -> tuple[str, ...]:
    """The active standard (street-delivery) zips whose USPS city is ``city``, sorted."""
    key = (city, state)
    if key not in _ZIPS:
        records = zipcodes.filter_by(city=city, state=state)
        _ZIPS[key] = tuple(
            sorted(r["zip_code"] for r in records if r["zip_code_type"] == "STANDARD" and r["active"])
        )
    return _ZIPS[key]


def random_street(rng: random.Random) -> str:
    """A made-up street line: '1743 Chestnut St'."""
    return f"{rng.randint(10, 9999)} {rng.choice(STREET_NAMES)} {rng.choice(STREET_SUFFIXES)}"


def random_unit(rng: random.Random) -> str:
    """A second address line, empty most of the time: '', 'Apt 12B', 'Suite 300', 'Unit 7'."""
    kind = rng.choice(["", "", "", "apt", "suite", "unit"])
    if kind == "apt":
        return f"Apt {rng.randint(1, 40)}{rng.choice('ABCD')}"
    if kind == "suite":
        return f"Suite {rng.randint(100, 900)}"
    if kind == "unit":
        return f"Unit {rng.randint(1, 60)}"
    return ""


def random_us_address(rng: random.Random) -> USAddress:
    """A deterministic address whose city, state and zip belong together."""
    city, state = rng.choice(CANDIDATE_CITIES)
    zip_code = rng.choice(candidate_zips(city, state))
    return USAddress(random_street(rng), random_unit(rng), city, state, zip_code)


def us_addresses(rng: random.Random, n: int) -> list[USAddress]:
    """``n`` addresses from ``rng``, as ``random_us_address`` draws them one after another."""
    return [random_us_address(rng) for _ in range(n)]
