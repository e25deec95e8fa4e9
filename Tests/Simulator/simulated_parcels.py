"""Which numbers `kuroneko simulate` (and `serve --demo`) gives which journey, and when, worked out as the
simulator does (Sources/KuronekoSimulator): for tests in Python that need a parcel in a given state at a given
time without waiting for it."""

# The hour after hand-in at which each carrier's simulated parcel finds nobody home.
ATTEMPT_HOURS = {"yamato": 22, "sagawa": 32, "japanpost": 30}
# The first eleven digits its missed-delivery numbers start from: Yamato's absent_then_delivered scenario is
# any number whose first eleven digits are 1 modulo 7; Sagawa's are 12 digits from 89, Japan Post's from 99.
FIRST = {"yamato": 31_000_000_000, "sagawa": 89_000_000_000, "japanpost": 99_000_000_000}


def fnv1a(text: str) -> int:
    """The 64-bit FNV-1a hash the simulator seeds other carriers' parcels with."""
    seed = 14_695_981_039_346_656_037
    for byte in text.encode():
        seed = ((seed ^ byte) * 1_099_511_628_211) % (1 << 64)
    return seed


def twelve(eleven: int) -> str:
    """A 12-digit number with its check digit (the first eleven digits modulo 7)."""
    return f"{eleven:011d}{eleven % 7}"


def attempt_minutes(carrier: str, number: str) -> int | None:
    """When the parcel `number` finds nobody home, in minutes after the simulator's epoch (hand-in falls
    between 36 hours before and 12 hours after it); `None` when its journey has no missed delivery."""
    if carrier == "yamato":
        seed = int(number[:11])
        if seed % 7 != 1:
            return None
        handed_in = seed // 7 % 2880 - 36 * 60
    else:
        handed_in = fnv1a(number) % 2880 - 36 * 60
    return handed_in + ATTEMPT_HOURS[carrier] * 60


def absent_number(carrier: str, earliest: int = -240, latest: int = -180) -> str:
    """A number of `carrier` whose parcel finds nobody home between `earliest` and `latest` minutes after the
    simulator's epoch (by default 4 to 3 hours before it: all three carriers' parcels are then held at the
    epoch, Yamato's until its redelivery 22 hours after the attempt)."""
    first = FIRST[carrier]
    for eleven in range(first, first + 2_000_000):
        number = twelve(eleven)
        minutes = attempt_minutes(carrier, number)
        if minutes is not None and earliest <= minutes <= latest:
            return number
    raise AssertionError(f"no {carrier} number finds nobody home between {earliest} and {latest} minutes")
