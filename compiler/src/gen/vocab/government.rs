//! The government catalogue: a council's permits, licences and services
//! (transport, environment, community), in categories, with their fees and
//! how long a decision takes.

use super::{kind_x, Category, Department, Extra, RecordAmount, Rounding, Vocabulary};

pub(in crate::gen) static VOCABULARY: Vocabulary = Vocabulary {
    site_names: &[
        "Marlow",
        "Bayview",
        "Hillside",
        "Port Elm",
        "Kingsbridge",
        "Ashby",
        "Northgate",
        "Wexley",
    ],
    site_kinds: &[
        "City Council",
        "Council",
        "Borough",
        "District",
        "Town Hall",
    ],
    people_table: "Resident",
    things_table: "Permit",
    price_label: "Fee",
    departments: &[TRANSPORT, ENVIRONMENT, COMMUNITY],
    rounding: Rounding::Whole(1),
    stock: (0, 15),
    extra: Some(Extra {
        field: "days",
        shown: "Decided within {} days",
        step: 1,
    }),
    record_table: "Receipt",
    records: "receipts",
    record_amount: RecordAmount::PriceTimes(1),
    weekdays_only: true,
    // Office hours: the counter closes at half past four.
    record_hours: Some((9 * 60, 16 * 60 + 30)),
    request_table: "Filing",
    verb: "Apply for",
    requests: "filings",
    option_label: "Delivery of the decision",
    options: ["By post", "By email", "In person"],
};

const TRANSPORT: Department = Department {
    name: "Transport",
    categories: &[
        Category {
            name: "Parking",
            kinds: &[
                kind_x(
                    &[
                        "Resident",
                        "Visitor",
                        "Business",
                        "Carer",
                        "Blue badge",
                        "Motorcycle",
                    ],
                    &["parking permit"],
                    (20, 180),
                    (3, 14),
                ),
                kind_x(
                    &["Dropped kerb", "Driveway", "Parking bay"],
                    &["application", "request"],
                    (80, 450),
                    (14, 42),
                ),
                kind_x(
                    &["Car club", "Electric vehicle", "Loading"],
                    &["bay", "parking space"],
                    (40, 200),
                    (10, 30),
                ),
            ],
        },
        Category {
            name: "Roads",
            kinds: &[
                kind_x(
                    &["Road", "Lane", "Pavement", "Footpath"],
                    &["closure", "licence"],
                    (60, 500),
                    (10, 30),
                ),
                kind_x(
                    &["Skip", "Scaffolding", "Hoarding", "Crane"],
                    &["licence", "permit"],
                    (40, 250),
                    (3, 10),
                ),
                kind_x(
                    &["Vehicle crossing", "Highway", "Oversize load"],
                    &["permit", "notice"],
                    (50, 400),
                    (5, 20),
                ),
            ],
        },
        Category {
            name: "Waterways",
            kinds: &[
                kind_x(
                    &["Boat", "Canal", "Riverside", "Houseboat"],
                    &["mooring", "mooring permit"],
                    (120, 900),
                    (14, 42),
                ),
                kind_x(
                    &["River", "Lake", "Coarse", "Night"],
                    &["fishing permit", "angling licence"],
                    (15, 75),
                    (1, 7),
                ),
                kind_x(
                    &["Paddleboard", "Rowing", "Kayak", "Sailing"],
                    &["launch permit", "licence"],
                    (20, 120),
                    (2, 10),
                ),
            ],
        },
    ],
};

const ENVIRONMENT: Department = Department {
    name: "Environment",
    categories: &[
        Category {
            name: "Waste",
            kinds: &[
                kind_x(
                    &[
                        "Bulky waste",
                        "Garden waste",
                        "Mattress",
                        "Fridge",
                        "Electrical",
                    ],
                    &["collection", "pickup"],
                    (15, 90),
                    (2, 10),
                ),
                kind_x(
                    &["Trade waste", "Commercial recycling", "Food waste"],
                    &["contract", "licence"],
                    (120, 600),
                    (7, 28),
                ),
                kind_x(
                    &["Extra", "Replacement", "Larger"],
                    &["wheelie bin", "recycling box"],
                    (15, 60),
                    (3, 14),
                ),
            ],
        },
        Category {
            name: "Trees and parks",
            kinds: &[
                kind_x(
                    &["Tree", "Hedge", "Stump"],
                    &["removal", "works application", "pruning"],
                    (40, 300),
                    (14, 56),
                ),
                kind_x(
                    &["Allotment", "Community garden", "Orchard"],
                    &["plot", "tenancy"],
                    (30, 140),
                    (7, 30),
                ),
                kind_x(
                    &["Park", "Picnic", "Sports pitch", "Bandstand", "Pavilion"],
                    &["booking", "hire"],
                    (25, 250),
                    (3, 14),
                ),
            ],
        },
        Category {
            name: "Pests and noise",
            kinds: &[
                kind_x(
                    &["Pest control", "Wasp nest", "Rodent", "Bedbug"],
                    &["visit", "treatment"],
                    (40, 150),
                    (2, 10),
                ),
                kind_x(
                    &["Construction noise", "Late-night music", "Generator"],
                    &["exemption", "consent"],
                    (50, 300),
                    (7, 28),
                ),
                kind_x(
                    &["Bonfire", "Fireworks", "Smoke-control"],
                    &["permit", "notice"],
                    (10, 80),
                    (3, 14),
                ),
            ],
        },
    ],
};

const COMMUNITY: Department = Department {
    name: "Community",
    categories: &[
        Category {
            name: "Events",
            kinds: &[
                kind_x(
                    &["Street", "Block", "Garden", "Community", "Jubilee"],
                    &["party", "event"],
                    (10, 120),
                    (14, 42),
                ),
                kind_x(
                    &["Event", "Shop-front", "Lamp-post"],
                    &["banner", "sign"],
                    (25, 150),
                    (7, 21),
                ),
                kind_x(
                    &["Temporary event", "Late-night", "Personal"],
                    &["licence", "alcohol licence"],
                    (25, 300),
                    (10, 28),
                ),
            ],
        },
        Category {
            name: "Markets",
            kinds: &[
                kind_x(
                    &[
                        "Market",
                        "Farmers' market",
                        "Craft fair",
                        "Christmas market",
                        "Night market",
                    ],
                    &["stall", "pitch"],
                    (20, 120),
                    (7, 21),
                ),
                kind_x(
                    &["Busking", "Street-performance", "Pavement-art"],
                    &["spot", "permit"],
                    (5, 40),
                    (2, 10),
                ),
                kind_x(
                    &[
                        "Street trading",
                        "Food truck",
                        "Ice-cream van",
                        "Flower stand",
                    ],
                    &["licence", "consent"],
                    (80, 600),
                    (14, 42),
                ),
            ],
        },
        Category {
            name: "Animals",
            kinds: &[
                kind_x(
                    &["Dog", "Dangerous wild animal", "Pet shop", "Riding school"],
                    &["licence"],
                    (20, 450),
                    (7, 42),
                ),
                kind_x(
                    &["Beekeeping", "Poultry", "Livestock", "Horse"],
                    &["registration", "permit"],
                    (10, 90),
                    (5, 28),
                ),
                kind_x(
                    &["Dog", "Cat", "Ferret"],
                    &["microchipping", "lost-and-found notice"],
                    (10, 40),
                    (1, 5),
                ),
            ],
        },
    ],
};
