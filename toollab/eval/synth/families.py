"""The dev set's function families: a domain each, its functions in BFCL's doc vocabulary, and how people ask.

A question template names its slots after the function's parameters (`{city}`); a parameter the template leaves
out must be optional, and the answer then accepts leaving it out or its default. Values come from the pools below,
or from a parameter's own. Names and wording are this project's own (the test holds them apart from BFCL's).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # BFCL's words: string, integer, float, boolean, array (see `items`)
    description: str
    enum: tuple[str, ...] = ()
    default: Any = None  # a parameter with a default is optional
    pool: str | None = None  # where values come from (the enum, or POOLS[pool or name])
    words: tuple[str, str] = ("yes", "no")  # how a question says True and False
    grouped: bool = False  # a number written with thousands separators ("$1,250,000"), as people write money
    spoken: str = ""  # a date the question writes in words ("March 14, 2027"); its value in this strftime format
    percent: bool = False  # a fraction the question writes as a percentage ("5%" for 0.05)
    adjective: bool = False  # a country the question names by its adjective ("German" for Germany)
    spelled: bool = False  # a count the question writes in words ("for five years", "three guests")
    # an array's items: "enum" (one or two of `enum`), or "integer", "float" or "string" (a list from
    # `list_families.LIST_POOLS`: numbers written in brackets, words listed with "and")
    items: str = "enum"

    @property
    def required(self) -> bool:
        return self.default is None

    @property
    def number_list(self) -> bool:
        """An array of numbers: written in brackets, and judged in its order."""
        return self.type == "array" and self.items in ("integer", "float")


@dataclass(frozen=True)
class Fn:
    name: str
    description: str
    params: tuple[Param, ...]
    asks: tuple[str, ...]  # question templates with {param} slots


@dataclass(frozen=True)
class Family:
    name: str
    functions: tuple[Fn, ...] = field(default_factory=tuple)


POOLS: dict[str, tuple[Any, ...]] = {
    "city": (
        "Lisbon",
        "Tromso",
        "Cusco",
        "Nagoya",
        "Windhoek",
        "Tallinn",
        "Hobart",
        "Quebec City",
        "Mombasa",
        "Valparaiso",
        "Porto",
        "Kraków",
        "Auckland",
        "Bergen",
        "Seville",
        "Daejeon",
    ),
    "person": ("Amara", "Jonas", "Priya", "Tomasz", "Lucía", "Kenji", "Fatou", "Oskar", "Mei", "Rafael", "Ingrid"),
    "date": ("2027-03-14", "2027-05-02", "2027-07-21", "2027-09-09", "2027-11-30", "2028-01-17", "2028-02-29"),
    "weekday": ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    "time": ("08:30", "12:15", "18:45", "19:30", "20:00", "07:10"),
    "small_int": (2, 3, 4, 5, 6, 8),
    "hours": (1, 2, 3, 4, 6),
    "amount": (12.5, 40.0, 75.25, 120.0, 300.0, 18.9),
    "tracking": ("ZX4471", "QP2209", "TR88310", "LM5567", "BK1042"),
    "plant": ("basil", "monstera", "lavender", "fern", "aloe vera", "tomato seedling"),
    "station": ("Harbor Square", "Old Mill", "Central Park North", "Riverside", "Elm Street"),
    "ingredient": ("buttermilk", "eggs", "brown sugar", "heavy cream", "self-raising flour", "honey"),
    "book": ("The Salt Roads", "A Map of Rivers", "Quiet Engines", "Notes from the Reef", "The Last Lantern"),
    "card": ("LC-20931", "LC-55012", "LC-71884", "LC-10446"),
    "trainer": ("Dana", "Marco", "Yuki", "Selma"),
    "pet": ("Biscuit", "Luna", "Pepper", "Mochi", "Rex"),
    "phrase": ("good morning", "where is the station", "thank you very much", "how much does it cost"),
    "district": ("Old Town", "Harborfront", "University Hill", "Market Quarter"),
    "film": ("Glass Tides", "The Orchard Keeper", "Northern Static", "Paper Moons"),
    "cinema": ("Odeon Riverside", "Lumiere Hall", "Starlight Cinema"),
    "vegetable": ("carrots", "lettuce", "zucchini", "beans", "radishes"),
    "color": ("blue", "yellow", "red", "white", "green"),
    "item": ("pizza box", "glass jar", "battery", "milk carton", "old t-shirt"),
    "street": ("Baker Lane", "Maple Avenue", "Quay Road", "Linden Street"),
    "show": ("Deep Field", "The Long Commute", "Kitchen Science", "Night Owls"),
    "topic": ("volcanoes", "sleep", "bread baking", "electric cars", "bees"),
    "harbor": ("Port Elin", "Saltcove", "Gull Point", "Westhaven"),
    "trail": ("Eagle Ridge", "Fern Gully Loop", "Summit Path", "Blue Lake Trail"),
    "language": ("spanish", "french", "german", "italian", "japanese"),
    "car": ("Corolla 2019", "Golf 2021", "Model 3 2022", "Civic 2018"),
    "museum": ("City Museum of Art", "Maritime Museum", "Natural History Hall"),
    "theme": ("dinosaurs", "impressionism", "ancient egypt", "space travel"),
    "room": ("kitchen", "bedroom", "living room", "office"),
    "restaurant": ("Casa Lume", "The Green Fork", "Sakura Bar", "Olive & Thyme"),
    "dish": ("pad thai", "mushroom risotto", "falafel wrap", "lemon tart"),
    "team": ("Riverside Rovers", "Northfield United", "Harbor City FC", "Old Town Athletic"),
    "organization": ("Food Bank East", "Green Parks Trust", "City Animal Shelter"),
    "code": ("EUR", "USD", "JPY", "GBP", "CHF", "NOK"),
    "episode": ("EP-301", "EP-118", "EP-642"),
    "showing": ("SHW-7781", "SHW-1022", "SHW-5530"),
    "train": ("IC 512", "RE 77", "EX 903"),
    "rating": (1200, 1450, 1610, 1875, 2010),
    "percent": (3.5, 4.2, 5.0, 6.75),
    "years": (5, 10, 15, 20, 30),
    "principal": (15000.0, 80000.0, 250000.0),
    "kwh": (3.2, 12.5, 40.0, 250.0),
    "price": (0.18, 0.25, 0.32),
    "watts": (60, 800, 1500, 2000),
    "area": (12.0, 24.5, 38.0, 55.0),
    "flavor_days": (3, 7, 12, 20),
    "loan": (18500.0, 36000.0, 240000.0, 675000.0, 1250000.0),
    "goal": (25000.0, 150000.0, 2000000.0, 48500.0),
    "donation": (1500.0, 12000.0, 250.0, 40000.0),
    "match": (25, 50, 100),
    "campaign": ("Clean Rivers", "Winter Coats", "Library Renewal", "Meals on Wheels"),
    "census_year": (1990, 2005, 2010, 2020),
    "city_country": ("Porto, Portugal", "Cusco, Peru", "Nagoya, Japan", "Bergen, Norway", "Daejeon, South Korea"),
    "city_state": ("Denver, Colorado", "Boise, Idaho", "Portland, Oregon", "Tucson, Arizona"),
    "headcount": (9800, 48200, 275000, 1350000),
    "km2": (12.5, 88.0, 310.0, 1540.0),
    "sqft": (950, 1850, 2400, 3600, 12500),
    "salary": (42000.0, 68500.0, 115000.0, 1200000.0),
    "inscription": ("Happy birthday Ana", "Well done Jonas", "Welcome home"),
    "ferry_route": ("Saltcove to Gull Point", "Westhaven to Port Elin", "Harborfront to Old Town"),
    "bike_shop": ("Spoke & Chain", "Two Wheels Depot", "Hill Climb Cycles"),
    "band": ("The Lantern Fields", "Lumen Choir", "Velvet Harbor", "Nine Small Suns"),
    "yield": (0.035, 0.05, 0.0625, 0.08, 0.045),
    "country": ("Germany", "Japan", "Mexico", "Norway", "Portugal", "Kenya"),
    # the science and numbers families (train split): BFCL's call categories are mostly such requests
    "speed_ms": (4.5, 12.0, 19.6, 27.5, 33.0),
    "seconds": (2.5, 6.0, 11.0, 30.0, 45.5),
    "meters": (8.0, 45.0, 120.0, 380.0, 1250.0),
    "accel": (0.8, 2.5, 3.2, 9.81),
    "formula": ("H2O", "NaCl", "C6H12O6", "CaCO3", "NH3", "H2SO4"),
    "molarity": (0.1, 0.25, 0.5, 1.5, 2.0),
    "milliliters": (50.0, 125.0, 250.0, 500.0, 750.0),
    "grams": (2.5, 18.0, 36.5, 58.4, 100.0),
    "au": (0.72, 1.52, 5.2, 9.58, 30.1),
    "km": (384400.0, 149600000.0, 778500000.0, 4500.0),
    "volts": (3.7, 5.0, 9.0, 12.0, 230.0),
    "ohms": (4.7, 10.0, 47.0, 220.0, 1000.0),
    "watts_small": (2.5, 15.0, 60.0, 100.0),
    "event": (
        "the fall of the Berlin Wall",
        "the first Moon landing",
        "the signing of Magna Carta",
        "the opening of the Suez Canal",
        "the invention of the printing press",
    ),
    "ruler": ("Queen Victoria", "Louis XIV", "Emperor Meiji", "Catherine the Great", "Akbar"),
    "century": (12, 15, 17, 18, 19),
    "player": ("Rosa Imbert", "Kenji Ono", "Dale Whitcombe", "Priya Natarajan", "Tomas Varga"),
    "season": (2018, 2021, 2023, 2024),
    "hits": (42, 88, 131, 176),
    "at_bats": (160, 310, 455, 590),
    "length": (3.5, 12.0, 26.2, 100.0, 5280.0),
    "focal_cm": (5.0, 10.0, 25.0, 50.0),
    "distance_cm": (15.0, 30.0, 60.0, 120.0),
    "angle_deg": (15.0, 30.0, 42.0, 60.0),
    "index": (1.33, 1.5, 1.52, 2.42),
    "kg": (0.5, 2.0, 4.5, 12.0, 75.0),
    "celsius": (-12.5, 4.0, 21.0, 37.0, 88.5),
    "rise": (5.0, 12.5, 20.0, 45.0),
    "sides": (5, 6, 8, 10, 12),
    "side_cm": (3.0, 4.5, 7.0, 12.5, 20.0),
    "dice": (1, 2, 3, 4),
    "faces": (4, 6, 8, 12, 20),
    "trials": (10, 20, 50, 100),
    "chance": (0.1, 0.25, 0.5, 0.75),
}


ADJECTIVES = {
    "Germany": "German",
    "Japan": "Japanese",
    "Mexico": "Mexican",
    "Norway": "Norwegian",
    "Portugal": "Portuguese",
    "Kenya": "Kenyan",
}


def p(name: str, type: str, description: str, **kw: Any) -> Param:
    return Param(name, type, description, **kw)


FAMILIES: tuple[Family, ...] = (
    Family(
        "parcels",
        (
            Fn(
                "trace_shipment",
                "Report where a parcel is now, from its tracking code.",
                (p("tracking_code", "string", "The carrier's tracking code, for example ZX4471.", pool="tracking"),),
                (
                    "Where is my parcel {tracking_code} right now?",
                    "Can you track shipment {tracking_code} for me?",
                    "Has package {tracking_code} moved yet?",
                ),
            ),
            Fn(
                "delivery_days_estimate",
                "Estimate how many days a parcel takes between two cities.",
                (
                    p("origin_city", "string", "City the parcel leaves from.", pool="city"),
                    p("destination_city", "string", "City it goes to.", pool="city"),
                    p("express", "boolean", "Whether express shipping is used.", default=False),
                ),
                (
                    "How long does a parcel take from {origin_city} to {destination_city}?",
                    "If I post something in {origin_city}, when will it reach {destination_city}?",
                ),
            ),
        ),
    ),
    Family(
        "plants",
        (
            Fn(
                "watering_plan",
                "Say how often a plant species needs water.",
                (
                    p("species", "string", "Common name of the plant.", pool="plant"),
                    p("pot_liters", "float", "Pot volume in liters.", default=2.0, pool="amount"),
                ),
                (
                    "How often should I water my {species}?",
                    "My {species} is in a {pot_liters} liter pot. How often does it need water?",
                ),
            ),
            Fn(
                "sunlight_requirement",
                "Describe how much sunlight a plant species wants.",
                (p("species", "string", "Common name of the plant.", pool="plant"),),
                ("Does a {species} like full sun?", "How much light does {species} need?"),
            ),
        ),
    ),
    Family(
        "bike_share",
        (
            Fn(
                "dock_bikes_free",
                "Count the bikes available at a bike-share dock.",
                (p("dock", "string", "Name of the dock.", pool="station"),),
                ("Are there bikes left at the {dock} dock?", "How many bikes can I grab at {dock}?"),
            ),
            Fn(
                "hire_bike",
                "Rent a bike from a dock for some hours.",
                (
                    p("dock", "string", "Name of the dock.", pool="station"),
                    p("hours", "integer", "Rental length in hours.", pool="hours", spelled=True),
                ),
                (
                    "Rent me a bike at {dock} for {hours} hours.",
                    "I'd like a bike from {dock} for {hours} hours, please.",
                ),
            ),
        ),
    ),
    Family(
        "kitchen_math",
        (
            Fn(
                "rescale_recipe_amount",
                "Scale an ingredient amount from one number of servings to another.",
                (
                    p("quantity", "float", "The amount in the recipe.", pool="amount"),
                    p("servings_from", "integer", "Servings the recipe makes.", pool="small_int", spelled=True),
                    p("servings_to", "integer", "Servings wanted.", pool="small_int", spelled=True),
                ),
                (
                    "A recipe for {servings_from} needs {quantity} grams of butter. How much for {servings_to} people?",
                    "Scale {quantity} ml from {servings_from} servings to {servings_to} servings.",
                ),
            ),
            Fn(
                "pantry_swap",
                "Suggest a substitute for an ingredient you do not have.",
                (p("ingredient", "string", "The missing ingredient.", pool="ingredient"),),
                ("I ran out of {ingredient}. What can I use instead?", "What's a good substitute for {ingredient}?"),
            ),
        ),
    ),
    Family(
        "rail",
        (
            Fn(
                "upcoming_departures",
                "List the next trains leaving a station.",
                (
                    p("station", "string", "Station name.", pool="station"),
                    p("line", "string", "Only this line.", default="any", pool="train"),
                ),
                ("When is the next train from {station}?", "What leaves {station} next on line {line}?"),
            ),
            Fn(
                "train_platform",
                "Find the platform a train departs from.",
                (p("train_number", "string", "The train's number, like IC 512.", pool="train"),),
                ("Which platform does {train_number} leave from?", "Where do I board train {train_number}?"),
            ),
        ),
    ),
    Family(
        "library",
        (
            Fn(
                "extend_loan",
                "Renew a borrowed library book.",
                (
                    p("card_number", "string", "Library card number.", pool="card"),
                    p("title", "string", "Title of the book.", pool="book"),
                ),
                (
                    "Please renew '{title}' on card {card_number}.",
                    "Can you extend my loan of {title}? My card is {card_number}.",
                ),
            ),
            Fn(
                "late_return_fee",
                "Compute the fine for a book returned late.",
                (
                    p("days_late", "integer", "Days past the due date.", pool="flavor_days"),
                    p("daily_rate", "float", "Fine per day.", default=0.25, pool="price"),
                ),
                (
                    "What's the fine for a book {days_late} days late?",
                    "I'm {days_late} days late and they charge {daily_rate} a day. What do I owe?",
                ),
            ),
        ),
    ),
    Family(
        "gym",
        (
            Fn(
                "reserve_class_spot",
                "Book a place in a fitness class.",
                (
                    p("class_type", "string", "The class.", enum=("yoga", "spin", "pilates", "boxing")),
                    p("day", "string", "Weekday of the class.", pool="weekday"),
                ),
                ("Book me into {class_type} on {day}.", "Is there room in the {day} {class_type} class? Sign me up."),
            ),
            Fn(
                "coach_free_slots",
                "Show when a personal trainer has free time.",
                (p("coach", "string", "The trainer's first name.", pool="trainer"),),
                ("When is {coach} free for a session?", "Does coach {coach} have any openings?"),
            ),
        ),
    ),
    Family(
        "vet",
        (
            Fn(
                "next_vaccination",
                "Give the date a pet's next vaccination is due.",
                (
                    p("pet_name", "string", "The pet's name.", pool="pet"),
                    p("species", "string", "Kind of animal.", enum=("dog", "cat", "rabbit")),
                ),
                (
                    "When is {pet_name}'s next shot due? {pet_name} is a {species}.",
                    "My {species} {pet_name} needs vaccines. When is the next one?",
                ),
            ),
            Fn(
                "vet_opening_hours",
                "Opening hours of the vet clinic in a city.",
                (p("city", "string", "City of the clinic."),),
                ("When is the vet in {city} open?", "What are the clinic hours in {city}?"),
            ),
        ),
    ),
    Family(
        "energy",
        (
            Fn(
                "electricity_bill_part",
                "Cost of some energy at a price per kilowatt-hour.",
                (
                    p("kwh", "float", "Energy used, kWh.", pool="kwh"),
                    p("price_per_kwh", "float", "Price per kWh.", pool="price"),
                ),
                (
                    "What do {kwh} kWh cost at {price_per_kwh} per kWh?",
                    "At {price_per_kwh} a kilowatt-hour, how much is {kwh} kWh?",
                ),
            ),
            Fn(
                "appliance_energy",
                "Energy an appliance uses, from its power and hours of use.",
                (
                    p("watts", "integer", "Power in watts.", pool="watts"),
                    p("hours", "float", "Hours switched on.", pool="hours"),
                ),
                (
                    "How much energy does a {watts} W heater use in {hours} hours?",
                    "A {watts} watt device runs for {hours} hours. How many kWh is that?",
                ),
            ),
        ),
    ),
    Family(
        "phrasebook",
        (
            Fn(
                "say_it_in",
                "Translate a short travel phrase into a language.",
                (
                    p("phrase", "string", "The phrase in English."),
                    p(
                        "language",
                        "string",
                        "Target language.",
                        enum=("spanish", "french", "german", "italian", "japanese"),
                    ),
                ),
                ("How do I say '{phrase}' in {language}?", "Translate '{phrase}' to {language}."),
            ),
        ),
    ),
    Family(
        "parking",
        (
            Fn(
                "open_parking_spaces",
                "Find free parking in a district.",
                (
                    p("district", "string", "Part of town."),
                    p("max_hourly", "float", "Most you will pay per hour.", default=10.0, pool="price"),
                ),
                ("Where can I park in {district}?", "Any parking in {district} under {max_hourly} an hour?"),
            ),
            Fn(
                "parking_charge",
                "Total parking charge for a stay.",
                (p("hours", "integer", "Hours parked."), p("hourly_rate", "float", "Rate per hour.", pool="amount")),
                ("I parked {hours} hours at {hourly_rate} per hour. What do I pay?",),
            ),
        ),
    ),
    Family(
        "cinema",
        (
            Fn(
                "film_showtimes",
                "Showtimes of a film at a cinema.",
                (p("cinema", "string", "The cinema."), p("film", "string", "Film title.")),
                ("When is {film} playing at {cinema}?", "Showtimes for {film} at {cinema}, please."),
            ),
            Fn(
                "seats_remaining",
                "Seats still free for a showing.",
                (p("showing_id", "string", "The showing's id.", pool="showing"),),
                ("How many seats are left for showing {showing_id}?",),
            ),
        ),
    ),
    Family(
        "vegetable_garden",
        (
            Fn(
                "last_frost_estimate",
                "Estimate the last spring frost date for a city.",
                (p("city", "string", "The city."),),
                (
                    "When is the last frost usually in {city}?",
                    "Is it safe to plant out in {city} yet? When does frost end?",
                ),
            ),
            Fn(
                "row_spacing",
                "Recommended spacing between plants of a vegetable, in centimeters.",
                (p("vegetable", "string", "The vegetable."),),
                ("How far apart should I plant {vegetable}?", "What spacing do {vegetable} need?"),
            ),
        ),
    ),
    Family(
        "painting",
        (
            Fn(
                "paint_volume",
                "Liters of paint for a wall area.",
                (
                    p("area_m2", "float", "Wall area in square meters.", pool="area"),
                    p("coats", "integer", "Number of coats.", default=2, pool="small_int", spelled=True),
                ),
                (
                    "How much paint for {area_m2} square meters?",
                    "I'm painting {area_m2} m2 with {coats} coats. How many liters?",
                ),
            ),
            Fn(
                "blend_colors",
                "Name the color two paints make when mixed.",
                (
                    p("first", "string", "One paint color.", pool="color"),
                    p("second", "string", "The other.", pool="color"),
                ),
                ("What do {first} and {second} make when mixed?", "If I mix {first} with {second}, what color is it?"),
            ),
        ),
    ),
    Family(
        "recycling",
        (
            Fn(
                "which_bin",
                "Say which bin an item goes in.",
                (p("item", "string", "The thing to throw away."),),
                ("Which bin does a {item} go in?", "How do I recycle a {item}?"),
            ),
            Fn(
                "pickup_day",
                "Day the bins are collected on a street.",
                (p("street", "string", "Street name."),),
                ("When are bins collected on {street}?", "What day is trash pickup on {street}?"),
            ),
        ),
    ),
    Family(
        "money_exchange",
        (
            Fn(
                "fx_quote",
                "The exchange rate between two currencies.",
                (
                    p("base", "string", "Currency code to convert from.", pool="code"),
                    p("quote", "string", "Currency code to convert to.", pool="code"),
                ),
                ("What is the {base} to {quote} rate today?", "How many {quote} for one {base}?"),
            ),
            Fn(
                "fx_swap_amount",
                "Convert an amount of money between currencies.",
                (
                    p("amount", "float", "How much money."),
                    p("from_code", "string", "Its currency code.", pool="code"),
                    p("to_code", "string", "Target currency code.", pool="code"),
                ),
                ("How much is {amount} {from_code} in {to_code}?", "Convert {amount} {from_code} to {to_code}."),
            ),
        ),
    ),
    Family(
        "ride_share",
        (
            Fn(
                "split_fare",
                "Split a ride's cost evenly between riders.",
                (
                    p("total", "float", "Total fare.", pool="amount"),
                    p("riders", "integer", "People sharing.", pool="small_int", spelled=True),
                ),
                (
                    "We are {riders} people and the taxi cost {total}. How much each?",
                    "Split a {total} fare {riders} ways.",
                ),
            ),
        ),
    ),
    Family(
        "chess_club",
        (
            Fn(
                "elo_update",
                "New rating after a game, from both players' ratings and the result.",
                (
                    p("my_rating", "integer", "Your rating.", pool="rating"),
                    p("opponent_rating", "integer", "Opponent's rating.", pool="rating"),
                    p("outcome", "string", "Your result.", enum=("win", "loss", "draw")),
                ),
                ("I'm rated {my_rating} and got a {outcome} against a {opponent_rating}. What's my new rating?",),
            ),
        ),
    ),
    Family(
        "dentist",
        (
            Fn(
                "dental_checkup_booking",
                "Book a dental check-up for a patient on a date.",
                (p("patient", "string", "Patient's name.", pool="person"), p("date", "string", "Date, YYYY-MM-DD.")),
                ("Book a dental check-up for {patient} on {date}.", "Can {patient} see the dentist on {date}?"),
            ),
        ),
    ),
    Family(
        "podcasts",
        (
            Fn(
                "podcast_episodes_about",
                "Find episodes of a show on a topic.",
                (p("show", "string", "Podcast name."), p("topic", "string", "What the episode is about.")),
                ("Did {show} ever do an episode about {topic}?", "Find {show} episodes on {topic}."),
            ),
            Fn(
                "episode_runtime",
                "Length of an episode in minutes.",
                (p("episode_id", "string", "Episode id.", pool="episode"),),
                ("How long is episode {episode_id}?",),
            ),
        ),
    ),
    Family(
        "coworking",
        (
            Fn(
                "coworking_space_search",
                "Find coworking spaces in a city.",
                (
                    p("city", "string", "City name."),
                    p(
                        "amenities",
                        "array",
                        "Amenities the space should have. Default empty array.",
                        enum=("Meeting Rooms", "Phone Booths", "Standing Desks", "Bike Storage", "Shared Kitchen"),
                        default=[],
                    ),
                ),
                (
                    "Find a coworking space in {city} with {amenities}.",
                    "Which coworking spaces in {city} have {amenities}?",
                    "I need a coworking space in {city}.",
                ),
            ),
        ),
    ),
    Family(
        "cafes",
        (
            Fn(
                "cafe_finder",
                "Find cafes in a city district.",
                (
                    p("district", "string", "The district."),
                    p(
                        "features",
                        "array",
                        "Preferred features of the cafe.",
                        enum=("Outdoor Seating", "Vegan Options", "Free Wi-Fi", "Board Games", "Live Music"),
                        default=[],
                    ),
                ),
                (
                    "Is there a cafe in {district} with {features}?",
                    "Find me a cafe in {district} that has {features}.",
                ),
            ),
        ),
    ),
    Family(
        "investments",
        (
            Fn(
                "investment_future_value",
                "Future value of an investment at a yearly yield.",
                (
                    p("amount", "float", "Amount invested, in dollars.", pool="principal", grouped=True),
                    p("annual_yield", "float", "Yearly yield as a decimal (0.05 for 5%).", pool="yield", percent=True),
                    p("years", "integer", "Years invested.", spelled=True),
                ),
                (
                    "What will ${amount} be worth after {years} years at a {annual_yield} annual yield?",
                    "If I invest ${amount} for {years} years earning {annual_yield} a year, what do I end up with?",
                ),
            ),
        ),
    ),
    Family(
        "anthems",
        (
            Fn(
                "national_anthem",
                "The national anthem of a country: its title and who wrote it.",
                (p("country", "string", "The country.", adjective=True),),
                ("Who wrote the {country} national anthem?", "What is the title of the {country} anthem?"),
            ),
        ),
    ),
    Family(
        "ferries",
        (
            Fn(
                "ferry_sailings",
                "Ferry sailings on a route on a given day.",
                (
                    p("route", "string", "The route.", pool="ferry_route"),
                    p("date", "string", "Travel date in YYYY-MM-DD format.", spoken="%Y-%m-%d"),
                ),
                ("Which ferries sail {route} on {date}?", "Show me the {route} ferry times for {date}."),
            ),
        ),
    ),
    Family(
        "bike_repair",
        (
            Fn(
                "bike_service_booking",
                "Book a bicycle service at a repair shop.",
                (
                    p("shop", "string", "Repair shop name.", pool="bike_shop"),
                    p("date", "string", "Appointment date, format MM/DD/YYYY.", spoken="%m/%d/%Y"),
                ),
                ("Book my bike in at {shop} on {date}.", "Can {shop} service my bicycle on {date}?"),
            ),
        ),
    ),
    Family(
        "concert_tickets",
        (
            Fn(
                "concert_ticket_prices",
                "Ticket prices for a band's concert on a date.",
                (
                    p("band", "string", "The band."),
                    p("date", "string", "Concert date (DD-MM-YYYY).", spoken="%d-%m-%Y"),
                ),
                ("How much are tickets to see {band} on {date}?", "Ticket prices for {band}, {date}?"),
            ),
        ),
    ),
    Family(
        "hostels",
        (
            Fn(
                "hostel_search",
                "Search hostels in a city.",
                (
                    p("city", "string", "City name."),
                    p(
                        "facilities",
                        "array",
                        "Facilities the hostel must offer. Default empty array.",
                        enum=("Laundry", "Private Rooms", "Shared Kitchen", "Lockers", "Breakfast"),
                        default=[],
                    ),
                ),
                ("Find a hostel in {city} with {facilities}.", "Which hostels in {city} offer {facilities}?"),
            ),
        ),
    ),
    Family(
        "term_deposits",
        (
            Fn(
                "term_deposit_interest",
                "Interest earned by a term deposit.",
                (
                    p("deposit", "float", "Amount deposited, in dollars.", pool="principal", grouped=True),
                    p("rate", "float", "Yearly rate as a decimal, e.g. 0.04.", pool="yield", percent=True),
                    p("years", "integer", "Term in years."),
                ),
                ("How much interest does ${deposit} earn over {years} years at {rate}?",),
            ),
        ),
    ),
    Family(
        "holidays",
        (
            Fn(
                "public_holidays",
                "Public holidays of a country in a year.",
                (
                    p("country", "string", "The country.", adjective=True),
                    p("year", "integer", "The year.", pool="census_year"),
                ),
                ("Which {country} public holidays fall in {year}?",),
            ),
        ),
    ),
    Family(
        "tides",
        (
            Fn(
                "tide_table",
                "High and low tide times at a harbor on a date.",
                (
                    p("harbor", "string", "Harbor name."),
                    p("date", "string", "Date, YYYY-MM-DD.", spoken="%Y-%m-%d"),
                ),
                ("When is high tide at {harbor} on {date}?", "Tide times for {harbor}, {date}."),
            ),
        ),
    ),
    Family(
        "bakery",
        (
            Fn(
                "order_custom_cake",
                "Order a cake.",
                (
                    p("flavor", "string", "Cake flavor.", enum=("chocolate", "vanilla", "carrot", "lemon")),
                    p("tiers", "integer", "Number of tiers.", pool="small_int", spelled=True),
                    p("inscription", "string", "Text written on top.", default=""),
                ),
                (
                    "Order a {flavor} cake with {tiers} tiers.",
                    "I want a {tiers}-tier {flavor} cake that says '{inscription}'.",
                ),
            ),
        ),
    ),
    Family(
        "hiking",
        (
            Fn(
                "trail_grade",
                "How hard a hiking trail is.",
                (p("trail", "string", "Trail name."),),
                ("Is {trail} a hard hike?", "How difficult is {trail}?"),
            ),
            Fn(
                "trail_climb",
                "Total climb of a trail.",
                (
                    p("trail", "string", "Trail name."),
                    p("unit", "string", "Unit of the answer.", enum=("meters", "feet"), default="meters"),
                ),
                ("How much climbing is on {trail}?", "What's the elevation gain of {trail} in {unit}?"),
            ),
        ),
    ),
    Family(
        "language_school",
        (
            Fn(
                "class_timetable",
                "When a language course meets.",
                (
                    p("language", "string", "Language taught."),
                    p("level", "string", "Course level.", enum=("beginner", "intermediate", "advanced")),
                ),
                ("When does the {level} {language} course meet?", "Schedule for {language}, {level} level?"),
            ),
        ),
    ),
    Family(
        "car_care",
        (
            Fn(
                "recommended_tire_pressure",
                "Tire pressure a car model should run at.",
                (p("car_model", "string", "Model and year.", pool="car"),),
                ("What tire pressure for a {car_model}?", "How much air do the tires on my {car_model} need?"),
            ),
            Fn(
                "service_interval",
                "Kilometers between oil changes for a car model.",
                (
                    p("car_model", "string", "Model and year.", pool="car"),
                    p("driving", "string", "Mostly city or highway.", enum=("city", "highway"), default="city"),
                ),
                (
                    "How often does a {car_model} need an oil change?",
                    "Oil change interval for a {car_model} driven mostly on the {driving}?",
                ),
            ),
        ),
    ),
    Family(
        "museums",
        (
            Fn(
                "admission_price",
                "Ticket price at a museum for a kind of visitor.",
                (
                    p("museum", "string", "Museum name."),
                    p("visitor", "string", "Visitor type.", enum=("adult", "child", "senior", "student")),
                ),
                ("How much is a {visitor} ticket at the {museum}?", "Entry price for a {visitor} at {museum}?"),
            ),
            Fn(
                "exhibits_on",
                "Current exhibitions on a theme.",
                (p("theme", "string", "The theme."),),
                ("Is there an exhibition about {theme} on now?", "Which museums show {theme} at the moment?"),
            ),
        ),
    ),
    Family(
        "sky",
        (
            Fn(
                "lunar_phase",
                "The moon's phase on a date.",
                (p("date", "string", "Date, YYYY-MM-DD."),),
                ("What phase is the moon on {date}?", "Will there be a full moon on {date}?"),
            ),
            Fn(
                "planets_tonight",
                "Planets visible from a city on a date.",
                (p("city", "string", "Where you are."), p("date", "string", "Date, YYYY-MM-DD.")),
                ("Which planets can I see from {city} on {date}?",),
            ),
        ),
    ),
    Family(
        "smart_home",
        (
            Fn(
                "thermostat_target",
                "Set a room's thermostat.",
                (
                    p("room", "string", "The room."),
                    p("celsius", "float", "Target temperature in Celsius.", pool="amount"),
                ),
                ("Set the {room} to {celsius} degrees.", "Make the {room} {celsius} °C."),
            ),
            Fn(
                "switch_lights",
                "Turn a room's lights on or off.",
                (
                    p("room", "string", "The room."),
                    p("on", "boolean", "True for on, false for off.", words=("on", "off")),
                ),
                ("Turn the lights in the {room} {on}.",),
            ),
        ),
    ),
    Family(
        "dining",
        (
            Fn(
                "book_restaurant_table",
                "Reserve a restaurant table.",
                (
                    p("restaurant", "string", "Restaurant name."),
                    p("guests", "integer", "Party size.", pool="small_int", spelled=True),
                    p("time", "string", "Time, HH:MM."),
                ),
                (
                    "Table for {guests} at {restaurant} at {time}, please.",
                    "Reserve {restaurant} for {guests} people at {time}.",
                ),
            ),
            Fn(
                "allergen_info",
                "List the allergens in a dish.",
                (p("dish", "string", "The dish."),),
                ("Does the {dish} contain nuts or gluten?", "What allergens are in the {dish}?"),
            ),
        ),
    ),
    Family(
        "borrowing",
        (
            Fn(
                "installment_amount",
                "Monthly payment of a loan.",
                (
                    p("principal", "float", "Amount borrowed."),
                    p("annual_rate", "float", "Yearly interest in percent.", pool="percent"),
                    p("years", "integer", "Length in years."),
                ),
                (
                    "What's the monthly payment on {principal} at {annual_rate}% over {years} years?",
                    "I borrow {principal} for {years} years at {annual_rate} percent. Monthly cost?",
                ),
            ),
        ),
    ),
    Family(
        "football",
        (
            Fn(
                "final_score",
                "Score of the last match between two teams.",
                (p("home", "string", "Home team.", pool="team"), p("away", "string", "Away team.", pool="team")),
                ("What was the score of {home} against {away}?", "Who won {home} vs {away}?"),
            ),
            Fn(
                "table_position",
                "A team's place in the league table.",
                (p("team", "string", "Team name."),),
                ("Where is {team} in the table?", "What position are {team} in?"),
            ),
        ),
    ),
    Family(
        "volunteering",
        (
            Fn(
                "open_volunteer_shifts",
                "Volunteer shifts an organization has on a weekday.",
                (
                    p("organization", "string", "The organization."),
                    p("day", "string", "Day of the week.", pool="weekday"),
                ),
                ("Does {organization} need volunteers on {day}?", "Shifts at {organization} on {day}?"),
            ),
        ),
    ),
    Family(
        "loans",
        (
            Fn(
                "loan_monthly_payment",
                "Monthly payment of a fixed-rate loan.",
                (
                    p("principal", "float", "Amount borrowed, in dollars.", pool="loan", grouped=True),
                    p("annual_rate", "float", "Yearly interest in percent.", pool="percent"),
                    p("years", "integer", "Length of the loan in years.", spelled=True),
                    p(
                        "include_insurance",
                        "boolean",
                        "Whether payment protection insurance is added.",
                        default=False,
                        words=("including insurance", "without insurance"),
                    ),
                ),
                (
                    "What is the monthly payment on a ${principal} loan at {annual_rate}% over {years} years?",
                    "Monthly payment for borrowing ${principal} over {years} years at {annual_rate}%, "
                    "{include_insurance}?",
                ),
            ),
            Fn(
                "loan_total_interest",
                "Total interest paid over the life of a loan.",
                (
                    p("principal", "float", "Amount borrowed, in dollars.", pool="loan", grouped=True),
                    p("annual_rate", "float", "Yearly interest in percent.", pool="percent"),
                    p("years", "integer", "Length of the loan in years."),
                ),
                ("How much interest do I pay in total on ${principal} borrowed for {years} years at {annual_rate}%?",),
            ),
        ),
    ),
    Family(
        "charity_drives",
        (
            Fn(
                "campaign_progress",
                "How much a fundraising campaign has raised toward its goal.",
                (
                    p("campaign", "string", "The campaign's name."),
                    p("goal", "float", "The goal in dollars.", grouped=True),
                    p(
                        "include_donor_count",
                        "boolean",
                        "Whether the number of donors is reported too.",
                        default=False,
                        words=("with the donor count", "without the donor count"),
                    ),
                ),
                (
                    "How close is the {campaign} campaign to its ${goal} goal?",
                    "Progress of {campaign} toward ${goal}, {include_donor_count}, please.",
                ),
            ),
            Fn(
                "matched_donation_total",
                "What a donation comes to once an employer matches part of it.",
                (
                    p("amount", "float", "The donation in dollars.", pool="donation", grouped=True),
                    p("match_percent", "integer", "Share the employer matches, in percent.", pool="match"),
                ),
                ("If I give ${amount} and my employer matches {match_percent}%, what is the total?",),
            ),
        ),
    ),
    Family(
        "population",
        (
            Fn(
                "city_population",
                "Number of people living in a city in a given year.",
                (
                    p("city", "string", "The city and its country, e.g. Lisbon, Portugal.", pool="city_country"),
                    p("year", "integer", "Census year.", pool="census_year"),
                    p(
                        "include_growth_rate",
                        "boolean",
                        "Whether the yearly growth rate is given too.",
                        default=False,
                        words=("and its growth rate", "without the growth rate"),
                    ),
                ),
                (
                    "How many people lived in {city} in {year}?",
                    "Population of {city} in {year} {include_growth_rate}, please.",
                ),
            ),
            Fn(
                "population_density",
                "People per square kilometer.",
                (
                    p("population", "integer", "Number of inhabitants.", pool="headcount", grouped=True),
                    p("area_km2", "float", "Area in square kilometers.", pool="km2"),
                ),
                ("What is the density of a town of {population} people over {area_km2} square kilometers?",),
            ),
        ),
    ),
    Family(
        "house_prices",
        (
            Fn(
                "house_value_estimate",
                "Estimate what a house would sell for.",
                (
                    p("area_sqft", "integer", "Living area in square feet.", pool="sqft", grouped=True),
                    p("bedrooms", "integer", "Number of bedrooms.", pool="small_int", spelled=True),
                    p("city", "string", "The city and state, e.g. Austin, Texas.", pool="city_state"),
                    p(
                        "detailed",
                        "boolean",
                        "Whether a detailed breakdown of the estimate is returned.",
                        default=False,
                        words=("with a detailed breakdown", "without a detailed breakdown"),
                    ),
                ),
                (
                    "What would a {bedrooms}-bedroom house of {area_sqft} square feet in {city} sell for?",
                    "Estimate a {area_sqft} sq ft house with {bedrooms} bedrooms in {city}, {detailed}.",
                ),
            ),
        ),
    ),
    Family(
        "payroll",
        (
            Fn(
                "net_salary",
                "Yearly take-home pay after tax.",
                (
                    p("gross_salary", "float", "Gross yearly salary in dollars.", pool="salary", grouped=True),
                    p("tax_rate", "float", "Tax rate in percent.", pool="percent"),
                    p(
                        "include_bonus",
                        "boolean",
                        "Whether the yearly bonus is counted.",
                        default=False,
                        words=("including my bonus", "not counting my bonus"),
                    ),
                ),
                (
                    "What is my take-home pay on a ${gross_salary} salary taxed at {tax_rate}%?",
                    "Net pay on ${gross_salary} at a {tax_rate}% tax rate, {include_bonus}?",
                ),
            ),
        ),
    ),
    Family(
        "kinematics",
        (
            Fn(
                "distance_under_acceleration",
                "Distance covered by a body that starts at some speed and speeds up at a steady rate for a time.",
                (
                    p("initial_speed", "float", "Speed at the start, in metres per second.", pool="speed_ms"),
                    p("acceleration", "float", "Steady acceleration, in metres per second squared.", pool="accel"),
                    p("duration", "float", "How long it moves, in seconds.", pool="seconds"),
                ),
                (
                    "How far does a cart go in {duration} s if it starts at {initial_speed} m/s and accelerates at "
                    "{acceleration} m/s^2?",
                    "Starting at {initial_speed} m/s with an acceleration of {acceleration} m/s^2, what distance is "
                    "covered after {duration} seconds?",
                    "Find the displacement after {duration} seconds for an object with initial velocity "
                    "{initial_speed} m/s and acceleration {acceleration} m/s^2.",
                ),
            ),
            Fn(
                "drop_time",
                "Seconds an object takes to fall from a height, air resistance ignored.",
                (
                    p("height", "float", "Height of the drop, in metres.", pool="meters"),
                    p("gravity", "float", "Gravitational acceleration in m/s^2.", default=9.81, pool="accel"),
                ),
                (
                    "How long does a stone take to fall {height} metres?",
                    "If I drop a ball from {height} m where gravity is {gravity} m/s^2, when does it land?",
                ),
            ),
        ),
    ),
    Family(
        "chem_lab",
        (
            Fn(
                "formula_molar_mass",
                "Molar mass of a compound, in grams per mole, from its chemical formula.",
                (p("formula", "string", "The chemical formula, for example H2O.", pool="formula"),),
                (
                    "What is the molar mass of {formula}?",
                    "How many grams does one mole of {formula} weigh?",
                    "Give me the molecular weight of {formula} in g/mol.",
                ),
            ),
            Fn(
                "stock_volume_for_dilution",
                "Volume of a stock solution needed to make a weaker solution of a given volume.",
                (
                    p("stock_molarity", "float", "Concentration of the stock, mol/L.", pool="molarity"),
                    p("target_molarity", "float", "Concentration wanted, mol/L.", pool="molarity"),
                    p("target_volume_ml", "float", "Volume wanted, in millilitres.", pool="milliliters"),
                ),
                (
                    "How much {stock_molarity} M stock do I need for {target_volume_ml} mL of a {target_molarity} M "
                    "solution?",
                    "I want {target_volume_ml} mL at {target_molarity} mol/L from a {stock_molarity} mol/L stock. "
                    "What volume of stock is that?",
                ),
            ),
        ),
    ),
    Family(
        "orbits",
        (
            Fn(
                "orbit_period_years",
                "Orbital period of a planet around the Sun, from its mean distance in astronomical units.",
                (p("mean_distance_au", "float", "Mean distance from the Sun, in AU.", pool="au"),),
                (
                    "How many years does one orbit take at {mean_distance_au} AU from the Sun?",
                    "What is the orbital period of a body {mean_distance_au} AU from the Sun?",
                ),
            ),
            Fn(
                "light_delay",
                "Time light takes to cross a distance, in seconds.",
                (p("distance_km", "float", "The distance, in kilometres.", pool="km"),),
                (
                    "How long does light need to travel {distance_km} km?",
                    "Compute the light travel time over a distance of {distance_km} kilometers.",
                ),
            ),
        ),
    ),
    Family(
        "electric_circuits",
        (
            Fn(
                "current_through_resistor",
                "Current through a resistor from the voltage across it and its resistance (Ohm's law).",
                (
                    p("voltage", "float", "Voltage across it, in volts.", pool="volts"),
                    p("resistance", "float", "Its resistance, in ohms.", pool="ohms"),
                ),
                (
                    "What current flows through a {resistance} ohm resistor at {voltage} V?",
                    "A {voltage} volt source drives a {resistance} ohm load. How many amps is that?",
                    "Calculate the current when the voltage is {voltage} volts and the resistance {resistance} ohms.",
                ),
            ),
            Fn(
                "power_dissipated",
                "Power turned into heat in a resistor, from the current through it and its resistance.",
                (
                    p("current", "float", "Current in amperes.", pool="molarity"),
                    p("resistance", "float", "Resistance in ohms.", pool="ohms"),
                ),
                (
                    "How much power does a {resistance} ohm resistor dissipate with {current} A through it?",
                    "Find the heat power in watts for {current} amps through {resistance} ohms.",
                ),
            ),
        ),
    ),
    Family(
        "history_dates",
        (
            Fn(
                "year_of_event",
                "The year a historical event took place.",
                (p("event", "string", "The event, in a few words.", pool="event"),),
                (
                    "In what year was {event}?",
                    "When did {event} happen?",
                    "Tell me the year of {event}.",
                ),
            ),
            Fn(
                "reign_span",
                "First and last year of a monarch's reign.",
                (
                    p("ruler", "string", "The monarch's name.", pool="ruler"),
                    p("include_regency", "boolean", "Whether years under a regent count.", default=False),
                ),
                (
                    "How long did {ruler} reign?",
                    "From which year to which did {ruler} rule?",
                ),
            ),
        ),
    ),
    Family(
        "batting",
        (
            Fn(
                "batting_average_of",
                "A batter's average: hits divided by at-bats, to three decimals.",
                (
                    p("hits", "integer", "Number of hits.", pool="hits"),
                    p("at_bats", "integer", "Number of at-bats.", pool="at_bats"),
                ),
                (
                    "What is the batting average with {hits} hits in {at_bats} at-bats?",
                    "A hitter went {hits} for {at_bats}. What's his average?",
                ),
            ),
            Fn(
                "season_line",
                "A player's statistics for one season.",
                (
                    p("player", "string", "The player's full name.", pool="player"),
                    p("season", "integer", "The season's year.", pool="season"),
                ),
                (
                    "Show me {player}'s numbers for the {season} season.",
                    "How did {player} do in {season}?",
                    "Get the season stats of {player} in {season}.",
                ),
            ),
        ),
    ),
    Family(
        "unit_conversion",
        (
            Fn(
                "length_in_units",
                "Convert a length from one unit to another.",
                (
                    p("value", "float", "The length to convert.", pool="length"),
                    p("from_unit", "string", "Unit it is in.", enum=("meters", "feet", "miles", "kilometers")),
                    p("to_unit", "string", "Unit wanted.", enum=("meters", "feet", "miles", "kilometers")),
                ),
                (
                    "Convert {value} {from_unit} to {to_unit}.",
                    "How many {to_unit} are {value} {from_unit}?",
                    "What is {value} {from_unit} in {to_unit}?",
                ),
            ),
            Fn(
                "mass_in_pounds",
                "Convert a mass in kilograms to pounds.",
                (p("kilograms", "float", "Mass in kilograms.", pool="kg"),),
                ("How many pounds is {kilograms} kg?", "Turn {kilograms} kilograms into pounds."),
            ),
        ),
    ),
    Family(
        "optics",
        (
            Fn(
                "thin_lens_image_distance",
                "Where a thin lens forms an image, from its focal length and the object's distance.",
                (
                    p("focal_length_cm", "float", "Focal length of the lens, in cm.", pool="focal_cm"),
                    p("object_distance_cm", "float", "Object distance from the lens, in cm.", pool="distance_cm"),
                ),
                (
                    "An object sits {object_distance_cm} cm from a lens with focal length {focal_length_cm} cm. "
                    "Where is the image?",
                    "Find the image distance for a {focal_length_cm} cm lens and an object at {object_distance_cm} cm.",
                ),
            ),
            Fn(
                "refraction_angle",
                "Angle of a ray after it passes from air into a material (Snell's law).",
                (
                    p("incidence_deg", "float", "Angle of incidence, in degrees.", pool="angle_deg"),
                    p("refractive_index", "float", "Refractive index of the material.", pool="index"),
                ),
                (
                    "Light hits glass of index {refractive_index} at {incidence_deg} degrees. What is the refracted "
                    "angle?",
                    "What angle does a ray entering a medium with n = {refractive_index} at {incidence_deg} degrees "
                    "bend to?",
                ),
            ),
        ),
    ),
    Family(
        "thermal",
        (
            Fn(
                "heat_to_warm",
                "Energy in joules needed to warm a mass of a substance by some degrees.",
                (
                    p("mass_kg", "float", "Mass in kilograms.", pool="kg"),
                    p("temperature_rise", "float", "Rise in degrees Celsius.", pool="rise"),
                    p("substance", "string", "What is warmed.", enum=("water", "iron", "aluminium", "air")),
                ),
                (
                    "How much energy warms {mass_kg} kg of {substance} by {temperature_rise} degrees?",
                    "Heat needed to raise {mass_kg} kg of {substance} {temperature_rise} C?",
                ),
            ),
            Fn(
                "to_fahrenheit",
                "Give a Celsius reading in degrees Fahrenheit.",
                (p("celsius", "float", "Temperature in degrees Celsius.", pool="celsius"),),
                ("What is {celsius} C in Fahrenheit?", "Convert {celsius} degrees Celsius to Fahrenheit."),
            ),
        ),
    ),
    Family(
        "probability",
        (
            Fn(
                "dice_sum_chance",
                "Chance of rolling a given total with some dice of a number of faces.",
                (
                    p("target_sum", "integer", "The total wanted.", pool="sides"),
                    p("dice_count", "integer", "How many dice.", pool="dice", spelled=True),
                    p("faces", "integer", "Faces on each die.", default=6, pool="faces"),
                ),
                (
                    "What is the chance of rolling a total of {target_sum} with {dice_count} dice?",
                    "Probability that {dice_count} {faces}-sided dice add up to {target_sum}?",
                ),
            ),
            Fn(
                "binomial_chance",
                "Probability of exactly some successes in a number of independent trials.",
                (
                    p("successes", "integer", "Successes wanted.", pool="small_int"),
                    p("trials", "integer", "Number of trials.", pool="trials"),
                    p("success_chance", "float", "Chance of success in one trial.", pool="chance"),
                ),
                (
                    "What is the probability of exactly {successes} successes in {trials} trials with p = "
                    "{success_chance}?",
                    "If each try succeeds with probability {success_chance}, how likely are {successes} wins out of "
                    "{trials}?",
                ),
            ),
        ),
    ),
    Family(
        "triangles",
        (
            Fn(
                "polygon_angle_total",
                "Sum of the interior angles of a polygon, in degrees.",
                (p("side_count", "integer", "Number of sides.", pool="sides"),),
                (
                    "What do the interior angles of a {side_count}-sided polygon add up to?",
                    "Sum of interior angles for a polygon with {side_count} sides?",
                ),
            ),
            Fn(
                "hypotenuse_length",
                "Length of a right triangle's longest side from the two shorter ones.",
                (
                    p("leg_a", "float", "One short side.", pool="side_cm"),
                    p("leg_b", "float", "The other short side.", pool="side_cm"),
                ),
                (
                    "A right triangle has legs {leg_a} and {leg_b}. How long is the hypotenuse?",
                    "Find the hypotenuse for sides of {leg_a} cm and {leg_b} cm.",
                ),
            ),
        ),
    ),
)


def _decoy(name: str, description: str, *params: Param) -> Fn:
    return Fn(name, description, params, ())  # offered only: never asked


# Near misses harder than a family's other functions: for a function of the dev and test families, one of the same
# domain over the same things that does something else ("the last spring frost" asked, "the first autumn frost"
# offered). Irrelevance items offer them; no other item sees them, so the families' draws stay as they were.
DECOYS: dict[str, Fn] = {
    "last_frost_estimate": _decoy(
        "first_frost_estimate", "Estimate the first autumn frost date for a city.", p("city", "string", "City name.")
    ),
    "row_spacing": _decoy(
        "sowing_depth", "Recommended sowing depth for seeds of a vegetable, in centimeters.",
        p("vegetable", "string", "Vegetable name."),
    ),
    "elo_update": _decoy(
        "win_chance", "Expected chance of winning a game, from both players' ratings.",
        p("my_rating", "integer", "Your rating."), p("opponent_rating", "integer", "Opponent's rating."),
    ),
    "trail_grade": _decoy(
        "trail_opening_hours", "Hours a hiking trail is open to walkers.", p("trail", "string", "Trail name.")
    ),
    "trail_climb": _decoy(
        "trail_length", "Total length of a hiking trail.", p("trail", "string", "Trail name."),
        p("unit", "string", "Kilometers or miles.", default="kilometers"),
    ),
    "class_timetable": _decoy(
        "course_fee", "What a language course costs per term.",
        p("language", "string", "Language taught."), p("level", "string", "Course level."),
    ),
    "recommended_tire_pressure": _decoy(
        "tire_size", "Tire size a car model is fitted with.", p("car_model", "string", "Car model and year.")
    ),
    "service_interval": _decoy(
        "fuel_consumption", "Liters of fuel a car model uses per 100 kilometers.",
        p("car_model", "string", "Car model and year."),
        p("driving", "string", "Mostly city or highway driving.", default="city"),
    ),
    "final_score": _decoy(
        "next_fixture_date", "Date of the next match between two teams.",
        p("home", "string", "Home team."), p("away", "string", "Away team."),
    ),
    "table_position": _decoy(
        "top_scorer", "A team's top goal scorer this season.", p("team", "string", "Team name.")
    ),
    "trace_shipment": _decoy(
        "shipment_insured_value", "Declared insurance value of a parcel, from its tracking code.",
        p("tracking_code", "string", "The carrier's tracking code."),
    ),
    "delivery_days_estimate": _decoy(
        "postage_price", "Price of posting a parcel between two cities.",
        p("origin_city", "string", "City the parcel leaves from."), p("destination_city", "string", "City it goes to."),
    ),
    "extend_loan": _decoy(
        "reserve_book", "Put a hold on a library book that another reader has on loan.",
        p("card_number", "string", "Library card number."), p("title", "string", "Book title."),
    ),
    "late_return_fee": _decoy(
        "lost_book_charge", "Charge for a lost library book, from its price.", p("price", "float", "The book's price.")
    ),
    "open_parking_spaces": _decoy(
        "charging_points", "Find electric car charging points in a district.", p("district", "string", "District.")
    ),
    "parking_charge": _decoy(
        "parking_time_left", "Minutes left on a parking ticket.",
        p("paid_hours", "integer", "Hours paid for."), p("minutes_used", "integer", "Minutes parked so far."),
    ),
    "paint_volume": _decoy(
        "paint_drying_time", "Hours paint takes to dry on a wall area.",
        p("area_m2", "float", "Wall area in square meters."), p("coats", "integer", "Number of coats.", default=2),
    ),
    "blend_colors": _decoy(
        "color_contrast", "Say whether two colors contrast enough for text on a background.",
        p("first", "string", "Text color."), p("second", "string", "Background color."),
    ),
    "which_bin": _decoy(
        "deposit_refund", "Deposit refunded for returning an item.", p("item", "string", "The item.")
    ),
    "pickup_day": _decoy(
        "street_cleaning_day", "Day a street is swept.", p("street", "string", "Street name.")
    ),
    "split_fare": _decoy(
        "fare_estimate", "Estimate a ride's fare from its distance.", p("distance_km", "float", "Distance in km.")
    ),
    "podcast_episodes_about": _decoy(
        "podcast_host", "Who hosts a podcast show.", p("show", "string", "Show name.")
    ),
    "episode_runtime": _decoy(
        "episode_release_date", "Date an episode was published.", p("episode_id", "string", "Episode id.")
    ),
    "coworking_space_search": _decoy(
        "coworking_day_pass_price", "Price of a day pass at a coworking space.", p("space", "string", "Space name.")
    ),
    "cafe_finder": _decoy(
        "cafe_opening_hours", "Opening hours of a cafe.", p("cafe", "string", "Cafe name.")
    ),
    "hostel_search": _decoy(
        "hostel_reviews", "Guest reviews of a hostel.", p("hostel", "string", "Hostel name.")
    ),
    "investment_future_value": _decoy(
        "investment_fee", "Yearly fee a fund charges on an investment.",
        p("amount", "float", "Amount invested, in dollars."), p("fund", "string", "The fund."),
    ),
    "national_anthem": _decoy(
        "national_flag", "The colours and design of a country's flag.", p("country", "string", "The country.")
    ),
    "term_deposit_interest": _decoy(
        "early_withdrawal_penalty", "Penalty for closing a term deposit early.",
        p("deposit", "float", "Amount deposited."), p("months_left", "integer", "Months left in the term."),
    ),
    "public_holidays": _decoy(
        "school_holidays", "School holiday dates of a region in a year.",
        p("region", "string", "The region."), p("year", "integer", "The year."),
    ),
    "ferry_sailings": _decoy(
        "ferry_fares", "Ticket prices on a ferry route.", p("route", "string", "The route.")
    ),
    "bike_service_booking": _decoy(
        "bike_parts_stock", "Whether a repair shop has a bicycle part in stock.",
        p("shop", "string", "Repair shop name."), p("part", "string", "The part."),
    ),
    "concert_ticket_prices": _decoy(
        "concert_setlist", "Songs a band played at a concert on a date.",
        p("band", "string", "The band."), p("date", "string", "Concert date (DD-MM-YYYY)."),
    ),
    "tide_table": _decoy(
        "sea_temperature", "Water temperature at a harbor on a date.",
        p("harbor", "string", "Harbor name."), p("date", "string", "Date, YYYY-MM-DD."),
    ),
    "open_volunteer_shifts": _decoy(
        "volunteer_hours_logged", "Hours a volunteer has logged with an organization.",
        p("organization", "string", "The organization."), p("volunteer", "string", "Volunteer's name."),
    ),
    "loan_monthly_payment": _decoy(
        "loan_early_payoff_fee", "Fee charged for paying a loan off early.",
        p("principal", "float", "Amount still owed, in dollars."), p("years", "integer", "Years left."),
    ),
    "loan_total_interest": _decoy(
        "max_affordable_loan", "Largest loan a monthly budget can carry.",
        p("monthly_budget", "float", "Monthly budget in dollars."), p("annual_rate", "float", "Yearly interest."),
    ),
    "campaign_progress": _decoy(
        "campaign_end_date", "Date a fundraising campaign closes.", p("campaign", "string", "The campaign's name.")
    ),
    "matched_donation_total": _decoy(
        "donation_tax_deduction", "Tax deduction a donation earns.",
        p("amount", "float", "The donation in dollars."),
    ),
    "city_population": _decoy(
        "city_median_age", "Median age of a city's residents in a given year.",
        p("city", "string", "City name."), p("year", "integer", "Census year."),
    ),
    "population_density": _decoy(
        "population_doubling_time", "Years for a population to double at a growth rate.",
        p("growth_rate", "float", "Yearly growth in percent."),
    ),
    "house_value_estimate": _decoy(
        "house_rent_estimate", "Estimate the monthly rent a house would fetch.",
        p("area_sqft", "integer", "Living area in square feet."), p("city", "string", "City name."),
    ),
    "net_salary": _decoy(
        "salary_percentile", "Where a salary ranks among a city's salaries.",
        p("gross_salary", "float", "Gross yearly salary."), p("city", "string", "City name."),
    ),
}  # fmt: skip
