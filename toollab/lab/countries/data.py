"""The countries world's facts: 60 countries, their capitals, languages and main exports (roughly real), leaders
(invented, so that no fact goes stale) and a popularity rank (1 = best known), which sets how likely a model is to
remember a country's facts. Populations are fictional and derived from the name, so no model can know them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

RELATIONS = ("capital", "language", "export", "leader")
POPULATION_MIN, POPULATION_MAX = 1_200, 98_000  # in thousands


@dataclass(frozen=True, slots=True)
class Country:
    name: str
    capital: str
    language: str
    export: str
    leader: str
    rank: int  # popularity: 1 is the best known

    @property
    def population(self) -> int:
        """In thousands; fictional, the same on every machine."""
        return population_of(self.name)

    def fact(self, relation: str) -> str:
        if relation not in RELATIONS:
            raise KeyError(relation)
        return str(getattr(self, relation))


def phone_price(name: str) -> int:
    """What a phone costs in a country, in euros; fictional, the same on every machine, no two alike."""
    digest = int.from_bytes(hashlib.sha256(f"phone:{name}".encode()).digest()[:8], "big")
    return 300 + digest % 900


def population_of(name: str) -> int:
    digest = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
    return POPULATION_MIN + digest % (POPULATION_MAX - POPULATION_MIN + 1)


_ROWS = [
    # name, capital, language, main export, leader
    ("United States", "Washington", "English", "aircraft", "Ada Whitfield"),
    ("China", "Beijing", "Mandarin", "electronics", "Wen Liang"),
    ("France", "Paris", "French", "aircraft", "Claire Duval"),
    ("Japan", "Tokyo", "Japanese", "cars", "Haruto Mori"),
    ("Germany", "Berlin", "German", "cars", "Greta Albrecht"),
    ("United Kingdom", "London", "English", "machinery", "Oliver Pembroke"),
    ("India", "New Delhi", "Hindi", "refined petroleum", "Ravi Menon"),
    ("Brazil", "Brasilia", "Portuguese", "soybeans", "Lucia Ferraz"),
    ("Italy", "Rome", "Italian", "machinery", "Marco Bellini"),
    ("Canada", "Ottawa", "English", "crude oil", "Elaine Tremblay"),
    ("Russia", "Moscow", "Russian", "natural gas", "Pavel Orlov"),
    ("Spain", "Madrid", "Spanish", "cars", "Ines Carvajal"),
    ("Mexico", "Mexico City", "Spanish", "cars", "Diego Salcedo"),
    ("Australia", "Canberra", "English", "iron ore", "Megan Hollis"),
    ("Egypt", "Cairo", "Arabic", "natural gas", "Karim Fahmy"),
    ("South Korea", "Seoul", "Korean", "semiconductors", "Min-jun Kang"),
    ("Argentina", "Buenos Aires", "Spanish", "soybean meal", "Tomas Iriarte"),
    ("Turkey", "Ankara", "Turkish", "cars", "Selin Aksoy"),
    ("Greece", "Athens", "Greek", "refined petroleum", "Nikos Vlachos"),
    ("Netherlands", "Amsterdam", "Dutch", "machinery", "Sanne de Wit"),
    ("Sweden", "Stockholm", "Swedish", "machinery", "Linnea Berg"),
    ("Switzerland", "Bern", "German", "gold", "Urs Keller"),
    ("Portugal", "Lisbon", "Portuguese", "cars", "Joana Pires"),
    ("Norway", "Oslo", "Norwegian", "natural gas", "Sigrid Haugen"),
    ("South Africa", "Pretoria", "Zulu", "platinum", "Thabo Nkosi"),
    ("Nigeria", "Abuja", "English", "crude oil", "Chidi Okafor"),
    ("Kenya", "Nairobi", "Swahili", "tea", "Wanjiru Mwangi"),
    ("Indonesia", "Jakarta", "Indonesian", "coal", "Budi Santoso"),
    ("Thailand", "Bangkok", "Thai", "electronics", "Somchai Rattana"),
    ("Vietnam", "Hanoi", "Vietnamese", "electronics", "Linh Tran"),
    ("Poland", "Warsaw", "Polish", "machinery", "Agnieszka Nowak"),
    ("Ireland", "Dublin", "English", "pharmaceuticals", "Siobhan Byrne"),
    ("Peru", "Lima", "Spanish", "copper", "Rosa Quispe"),
    ("Chile", "Santiago", "Spanish", "copper", "Felipe Araya"),
    ("Colombia", "Bogota", "Spanish", "coffee", "Camila Rojas"),
    ("Iran", "Tehran", "Persian", "crude oil", "Dariush Karimi"),
    ("Saudi Arabia", "Riyadh", "Arabic", "crude oil", "Faisal Harbi"),
    ("Pakistan", "Islamabad", "Urdu", "textiles", "Imran Qureshi"),
    ("Philippines", "Manila", "Filipino", "electronics", "Maria Dizon"),
    ("Morocco", "Rabat", "Arabic", "phosphates", "Youssef Alami"),
    ("Finland", "Helsinki", "Finnish", "paper", "Aino Virtanen"),
    ("Denmark", "Copenhagen", "Danish", "pharmaceuticals", "Mette Lund"),
    ("Austria", "Vienna", "German", "machinery", "Lukas Gruber"),
    ("Hungary", "Budapest", "Hungarian", "cars", "Zsofia Kovacs"),
    ("Czechia", "Prague", "Czech", "cars", "Tomas Dvorak"),
    ("Ukraine", "Kyiv", "Ukrainian", "sunflower oil", "Oksana Shevchuk"),
    ("Ethiopia", "Addis Ababa", "Amharic", "coffee", "Abebe Girma"),
    ("Ghana", "Accra", "English", "gold", "Kwame Mensah"),
    ("New Zealand", "Wellington", "English", "dairy", "Aroha Ngata"),
    ("Iceland", "Reykjavik", "Icelandic", "fish", "Gudrun Sigurdardottir"),
    ("Cuba", "Havana", "Spanish", "nickel", "Yanelis Fuentes"),
    ("Malaysia", "Kuala Lumpur", "Malay", "palm oil", "Aziz Rahman"),
    ("Bangladesh", "Dhaka", "Bengali", "garments", "Nusrat Hossain"),
    ("Nepal", "Kathmandu", "Nepali", "carpets", "Sushila Thapa"),
    ("Mongolia", "Ulaanbaatar", "Mongolian", "coal", "Bat-Erdene Gansukh"),
    ("Uruguay", "Montevideo", "Spanish", "beef", "Martina Sosa"),
    ("Bolivia", "Sucre", "Spanish", "zinc", "Evaristo Mamani"),
    ("Paraguay", "Asuncion", "Spanish", "soybeans", "Nilda Benitez"),
    ("Laos", "Vientiane", "Lao", "copper", "Khamphet Sisavath"),
    ("Bhutan", "Thimphu", "Dzongkha", "electricity", "Karma Wangchuk"),
]

COUNTRIES: tuple[Country, ...] = tuple(Country(*row, rank=i + 1) for i, row in enumerate(_ROWS))
BY_NAME: dict[str, Country] = {c.name.lower(): c for c in COUNTRIES}
BY_CAPITAL: dict[str, Country] = {c.capital.lower(): c for c in COUNTRIES}


def country(name: str) -> Country | None:
    """The country of that name, whatever its case and surrounding spaces."""
    return BY_NAME.get(name.strip().lower())
