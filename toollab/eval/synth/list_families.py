"""Families whose functions take lists: numbers a request writes in brackets, and things it lists in words.

BFCL's call categories pass many lists (data to summarise, a polynomial's coefficients, products to buy), and the
other families pass none but an enum's choices: the harness's list handling had nothing of our own to be chosen
on. These feed `synth_lists` and `synth_parallel_lists` only, so the other categories' items are what they were.
The names and wording are this project's own (the test holds them apart from BFCL's); a family's split is its
name's, as for the others.
"""

from __future__ import annotations

from toollab.eval.synth.families import Family, Fn, p

LIST_POOLS: dict[str, tuple[tuple[object, ...], ...]] = {
    "readings": (
        (4, 9, 7, 9, 3, 8),
        (21, 24, 22, 24, 27),
        (12, 15, 11, 14, 18, 19, 13, 14, 15, 16),
        (88, 92, 75, 92, 60, 71),
        (3, 1, 2),
        (105, 98, 110, 102, 99, 101, 97),
    ),
    "measurements": ((2.5, 3.1, 2.8, 3.1, 2.9), (10.2, 9.8, 10.5), (0.42, 0.39, 0.45, 0.41), (61.0, 58.5, 63.2, 60.1)),
    "coefficients": ((2, 0, -1), (1, -3, 2), (4, 1), (3, -2, 1), (1, 0, 0, -8), (5, 2)),
    "scores": ((72, 85, 90), (55, 61, 78, 80), (93, 88, 97, 91, 85), (40, 65)),
    "groceries": (
        ("apples", "rice", "bottled water"),
        ("milk", "eggs", "bread", "butter"),
        ("oats", "honey"),
        ("coffee", "sugar", "lemons"),
        ("tofu", "spinach", "garlic"),
    ),
    "pantry": (
        ("chicken", "lemon", "garlic"),
        ("tofu", "spinach"),
        ("chickpeas", "cumin", "tomatoes"),
        ("eggs", "leeks"),
    ),
    "stops": (
        ("Lisbon", "Porto", "Faro"),
        ("Oslo", "Bergen"),
        ("Kraków", "Tallinn", "Riga", "Vilnius"),
        ("Nagoya", "Kobe"),
    ),
    "tracks": (("Blue Morning", "Salt Flats"), ("Paper Sky", "Night Ferry", "Low Tide"), ("Ember", "Northbound")),
    # names people capitalise, some of several words and some with a small word inside ("North of Nowhere")
    "titles": (
        ("Middlemarch", "The Quiet Orchard"),
        ("Dune", "Pale Fire", "The Glass Road"),
        ("Silent Harbour", "North of Nowhere"),
        ("A Year in Lisbon", "Moonrise", "The Long Winter"),
        ("Persuasion", "Small Gods"),
    ),
    "bands": (
        ("Neon Fields", "The Lanterns"),
        ("Copper Owls", "Velvet Static", "Harbor Lights"),
        ("Dust Choir", "Tin Horizon"),
        ("Paper Kites", "Low Orbit", "Saint Cecilia"),
    ),
    "gear": (("raincoat", "gloves", "wool hat"), ("sunscreen", "sandals"), ("headlamp", "tent", "sleeping bag")),
}

LIST_FAMILIES: tuple[Family, ...] = (
    Family(
        "sample summaries",
        (
            Fn(
                "middle_value",
                "The median of a list of readings.",
                (p("readings", "array", "Readings to summarise, in any order.", items="integer", pool="readings"),),
                (
                    "What is the median of the readings {readings}?",
                    "Find the median of {readings}.",
                    "Give me the middle value of these numbers: {readings}.",
                ),
            ),
            Fn(
                "readings_spread",
                "How widely a list of measurements varies (standard deviation).",
                (
                    p("values", "array", "The measurements.", items="float", pool="measurements"),
                    p("whole_population", "boolean", "Treat the values as the whole population.", default=False),
                ),
                (
                    "What is the standard deviation of {values}?",
                    "How much do the measurements {values} spread?",
                ),
            ),
        ),
    ),
    Family(
        "polynomial work",
        (
            Fn(
                "poly_area_between",
                "Integral of a polynomial between two bounds, coefficients from the highest power down.",
                (
                    p(
                        "coefficients",
                        "array",
                        "Coefficients, highest power first.",
                        items="float",
                        pool="coefficients",
                    ),
                    p("lower", "float", "Lower bound.", pool="accel"),
                    p("upper", "float", "Upper bound.", pool="meters"),
                ),
                (
                    "Integrate the polynomial with coefficients {coefficients} from {lower} to {upper}.",
                    "What is the area under the polynomial {coefficients} between {lower} and {upper}?",
                ),
            ),
            Fn(
                "poly_zeros",
                "Where a polynomial, given by its coefficients from the highest power down, equals zero.",
                (p("coefficients", "array", "Coefficients, highest power first.", items="float", pool="coefficients"),),
                ("Find the roots of the polynomial {coefficients}.", "Where is the polynomial {coefficients} zero?"),
            ),
        ),
    ),
    Family(
        "shopping baskets",
        (
            Fn(
                "basket_cost",
                "Price a basket of groceries at one store.",
                (
                    p("store", "string", "The store.", pool="restaurant"),
                    p("products", "array", "What goes in the basket.", items="string", pool="groceries"),
                ),
                ("What would {products} cost at {store}?", "Price {products} at {store}."),
            ),
        ),
    ),
    Family(
        "pantry cooking",
        (
            Fn(
                "dishes_from_pantry",
                "Suggest dishes that use the ingredients at hand.",
                (
                    p("ingredients", "array", "Ingredients at hand.", items="string", pool="pantry"),
                    p("max_minutes", "integer", "Longest cooking time in minutes.", default=60, pool="flavor_days"),
                ),
                ("What can I cook with {ingredients}?", "Suggest a dish with {ingredients}."),
            ),
        ),
    ),
    Family(
        "report cards",
        (
            Fn(
                "term_mark",
                "A student's mark for the term from their test scores.",
                (
                    p("student", "string", "The student's name.", pool="person"),
                    p("test_scores", "array", "Scores of the term's tests.", items="integer", pool="scores"),
                ),
                (
                    "What is {student}'s term mark with scores {test_scores}?",
                    "{student} scored {test_scores}: term mark?",
                ),
            ),
        ),
    ),
    Family(
        "road trips",
        (
            Fn(
                "trip_forecast",
                "Tomorrow's weather side by side for the stops of a trip.",
                (p("stops", "array", "Cities to compare.", items="string", pool="stops"),),
                ("Compare tomorrow's weather in {stops}.", "How will the weather be tomorrow in {stops}?"),
            ),
            Fn(
                "packing_gaps",
                "What is missing from a packing list for a destination.",
                (
                    p("destination", "string", "Where the trip goes.", pool="country"),
                    p("packed", "array", "What is packed already.", items="string", pool="gear"),
                ),
                ("I'm off to {destination} and have packed {packed}. What am I missing?",),
            ),
        ),
    ),
    Family(
        "book club",
        (
            Fn(
                "club_reading_plan",
                "Spread a book club's chosen titles over its coming meetings.",
                (
                    p("books", "array", "Titles to read.", items="string", pool="titles"),
                    p("meetings", "integer", "How many meetings to plan.", default=4, pool="small_int"),
                ),
                ("Plan our book club's reading of {books}.", "Our book club picked {books}: plan the meetings."),
            ),
        ),
    ),
    Family(
        "festival lineups",
        (
            Fn(
                "set_time_clashes",
                "Find where the sets of chosen bands overlap at a festival.",
                (
                    p("festival", "string", "The festival.", pool="city"),
                    p("bands", "array", "Bands to see.", items="string", pool="bands"),
                ),
                ("Do {bands} clash at the {festival} festival?", "Check set times for {bands} in {festival}."),
            ),
        ),
    ),
    Family(
        "mix tapes",
        (
            Fn(
                "mixtape_length",
                "Total running time of a set of songs.",
                (p("songs", "array", "Song titles.", items="string", pool="tracks"),),
                ("How long would a mixtape of {songs} run?", "Total length of the songs {songs}?"),
            ),
        ),
    ),
)
