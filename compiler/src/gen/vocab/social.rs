//! The social catalogue: a community site's groups (outdoors, crafts,
//! culture), in categories, with yearly dues and their member counts.

use super::{kind_x, Category, Department, Extra, RecordAmount, Rounding, Vocabulary};

pub(in crate::gen) static VOCABULARY: Vocabulary = Vocabulary {
    site_names: &[
        "Backyard",
        "Makers",
        "Riverside",
        "Open Porch",
        "Commons",
        "Hearth",
        "Lantern",
        "Village",
    ],
    site_kinds: &["Club", "Circle", "Forum", "Network", "Collective"],
    people_table: "Member",
    things_table: "Group",
    price_label: "Yearly dues",
    departments: &[OUTDOORS, CRAFTS, CULTURE],
    rounding: Rounding::Whole(1),
    stock: (0, 12),
    extra: Some(Extra {
        field: "members",
        shown: "{} members",
        step: 1,
    }),
    record_table: "Contribution",
    records: "contributions",
    record_amount: RecordAmount::PriceTimes(1),
    weekdays_only: false,
    record_hours: None,
    request_table: "Membership",
    verb: "Join",
    requests: "memberships",
    option_label: "Role",
    options: ["Member", "Helper", "Organiser"],
};

const OUTDOORS: Department = Department {
    name: "Outdoors",
    categories: &[
        Category {
            name: "Nature",
            kinds: &[
                kind_x(
                    &[
                        "Riverside",
                        "Weekend",
                        "Beginners'",
                        "Northside",
                        "Dawn",
                        "Coastal",
                    ],
                    &["birdwatchers", "bird club"],
                    (5, 30),
                    (12, 80),
                ),
                kind_x(
                    &["Community", "Rooftop", "Allotment", "Balcony", "Orchard"],
                    &["gardeners", "garden club"],
                    (5, 25),
                    (10, 60),
                ),
                kind_x(
                    &["Hillside", "Valley", "Apiary", "Town", "Wildflower"],
                    &["beekeepers", "beekeeping circle"],
                    (15, 60),
                    (8, 40),
                ),
            ],
        },
        Category {
            name: "Sports",
            kinds: &[
                kind_x(
                    &["Sunday", "Parkrun", "Trail", "Evening", "Harbourside"],
                    &["runners", "running club"],
                    (10, 45),
                    (20, 200),
                ),
                kind_x(
                    &["Lake", "Open-water", "Morning", "Winter", "Sea"],
                    &["swimmers", "swim club"],
                    (15, 60),
                    (10, 80),
                ),
                kind_x(
                    &["Road", "Gravel", "Mountain bike", "Commuter", "Saturday"],
                    &["cyclists", "cycling club"],
                    (15, 50),
                    (15, 150),
                ),
            ],
        },
        Category {
            name: "Walking",
            kinds: &[
                kind_x(
                    &["Night", "Full-moon", "Heritage", "Canal", "Forest", "Hill"],
                    &["walkers", "walking group"],
                    (5, 20),
                    (10, 120),
                ),
                kind_x(
                    &["Nordic", "Lunchtime", "Buggy", "Slow", "Sunrise"],
                    &["walking club", "walking meetup"],
                    (5, 20),
                    (8, 60),
                ),
                kind_x(
                    &["Junior", "Woodland", "City", "Moonlight", "Family"],
                    &["orienteers", "orienteering club"],
                    (10, 35),
                    (8, 50),
                ),
            ],
        },
    ],
};

const CRAFTS: Department = Department {
    name: "Crafts",
    categories: &[
        Category {
            name: "Making",
            kinds: &[
                kind_x(
                    &[
                        "Wheel-throwing",
                        "Hand-building",
                        "Raku",
                        "Studio",
                        "Evening",
                    ],
                    &["potters", "pottery circle"],
                    (20, 80),
                    (8, 30),
                ),
                kind_x(
                    &[
                        "Sock",
                        "Lace",
                        "Beginners' knitting",
                        "Colourwork",
                        "Tuesday",
                    ],
                    &["knitters", "yarn club"],
                    (5, 25),
                    (6, 40),
                ),
                kind_x(
                    &["Urban", "Botanical", "Life", "Plein-air", "Ink"],
                    &["sketchers", "drawing club"],
                    (5, 30),
                    (8, 60),
                ),
            ],
        },
        Category {
            name: "Food",
            kinds: &[
                kind_x(
                    &["Sourdough", "Rye", "Weekend", "Wild-yeast", "Village"],
                    &["bakers", "baking club"],
                    (10, 40),
                    (8, 50),
                ),
                kind_x(
                    &["Supper", "Vegan", "Street-food", "Curry", "Dumpling"],
                    &["club", "cooks"],
                    (15, 60),
                    (10, 40),
                ),
                kind_x(
                    &[
                        "Foraging",
                        "Fermentation",
                        "Preserves",
                        "Cheese-making",
                        "Home-brew",
                    ],
                    &["group", "society"],
                    (10, 45),
                    (8, 50),
                ),
            ],
        },
        Category {
            name: "Repair",
            kinds: &[
                kind_x(
                    &[
                        "Bike",
                        "Electronics",
                        "Furniture",
                        "Clothing",
                        "Small appliance",
                    ],
                    &["repair cafe", "fixers"],
                    (5, 20),
                    (10, 60),
                ),
                kind_x(
                    &[
                        "Woodworking",
                        "Upholstery",
                        "Bookbinding",
                        "Leathercraft",
                        "Stained-glass",
                    ],
                    &["guild", "workshop"],
                    (25, 90),
                    (6, 30),
                ),
                kind_x(
                    &["Sewing", "Quilting", "Mending", "Embroidery", "Dressmaking"],
                    &["bee", "circle"],
                    (8, 35),
                    (6, 40),
                ),
            ],
        },
    ],
};

const CULTURE: Department = Department {
    name: "Culture",
    categories: &[
        Category {
            name: "Music",
            kinds: &[
                kind_x(
                    &[
                        "Community",
                        "Gospel",
                        "Chamber",
                        "Barbershop",
                        "Folk",
                        "Youth",
                    ],
                    &["choir", "singers"],
                    (20, 90),
                    (15, 70),
                ),
                kind_x(
                    &["Jazz", "Ceilidh", "Ukulele", "Samba", "Brass"],
                    &["band", "jam session"],
                    (15, 70),
                    (6, 40),
                ),
                kind_x(
                    &["String", "Recorder", "Early-music", "Amateur"],
                    &["ensemble", "orchestra"],
                    (25, 120),
                    (10, 60),
                ),
            ],
        },
        Category {
            name: "Games",
            kinds: &[
                kind_x(
                    &["Friday", "Lunchtime", "Rapid", "Junior", "Blitz"],
                    &["chess club", "chess circle"],
                    (10, 40),
                    (8, 60),
                ),
                kind_x(
                    &["Board", "Strategy", "Family", "Tabletop", "Card"],
                    &["games night", "gamers"],
                    (5, 25),
                    (10, 80),
                ),
                kind_x(
                    &["Crossword", "Bridge", "Go", "Jigsaw", "Escape-room"],
                    &["club", "society"],
                    (8, 40),
                    (8, 50),
                ),
            ],
        },
        Category {
            name: "Film and books",
            kinds: &[
                kind_x(
                    &[
                        "Classic",
                        "Foreign",
                        "Silent",
                        "Horror",
                        "Documentary",
                        "Cult",
                    ],
                    &["film club", "cinema society"],
                    (10, 45),
                    (15, 120),
                ),
                kind_x(
                    &[
                        "Crime",
                        "Poetry",
                        "Sci-fi",
                        "Translated fiction",
                        "Classics",
                    ],
                    &["book club", "reading group"],
                    (5, 25),
                    (6, 30),
                ),
                kind_x(
                    &[
                        "Local history",
                        "Philosophy",
                        "Science",
                        "Language exchange",
                        "Debating",
                    ],
                    &["society", "meetup"],
                    (10, 40),
                    (10, 90),
                ),
            ],
        },
    ],
};
