//! The e-commerce catalogue: a shop's departments (home, outdoor, clothing),
//! their categories, and the products of each with shop prices.

use super::{kind, Category, Department, RecordAmount, Rounding, Vocabulary};

pub(in crate::gen) static VOCABULARY: Vocabulary = Vocabulary {
    site_names: &[
        "Harbor",
        "Pine",
        "Copper",
        "Northwind",
        "Juniper",
        "Alder",
        "Bramble",
        "Saltmarsh",
    ],
    site_kinds: &["Goods", "Market", "Store", "Supply", "Trading"],
    people_table: "Customer",
    things_table: "Product",
    price_label: "Price",
    departments: &[HOME, OUTDOOR, CLOTHING],
    rounding: Rounding::Retail,
    stock: (0, 20),
    extra: None,
    record_table: "PastOrder",
    records: "past orders",
    record_amount: RecordAmount::PriceTimes(3),
    weekdays_only: false,
    record_hours: None,
    request_table: "Purchase",
    verb: "Order",
    requests: "orders",
    option_label: "Delivery",
    options: ["Standard", "Express", "Pickup"],
};

const HOME: Department = Department {
    name: "Home",
    categories: &[
        Category {
            name: "Kitchen",
            kinds: &[
                kind(
                    &["Enamel", "Stoneware", "Speckled glaze", "Handmade ceramic"],
                    &["mug", "coffee cup"],
                    (8, 28),
                ),
                kind(
                    &[
                        "Cast iron",
                        "Stainless steel",
                        "Glass",
                        "Copper",
                        "Gooseneck",
                    ],
                    &["kettle", "teapot"],
                    (25, 90),
                ),
                kind(
                    &["Olive wood", "Bamboo", "Walnut", "End-grain maple"],
                    &["chopping board", "serving board"],
                    (18, 75),
                ),
            ],
        },
        Category {
            name: "Lighting",
            kinds: &[
                kind(
                    &["Brass", "Matte black", "Adjustable", "Oak", "Ceramic"],
                    &["desk lamp", "table lamp"],
                    (35, 160),
                ),
                kind(
                    &["Linen", "Rattan", "Paper", "Pleated fabric", "Glass dome"],
                    &["pendant shade", "lampshade"],
                    (22, 110),
                ),
                kind(
                    &["Warm white", "Solar", "Battery", "Copper wire", "Festoon"],
                    &["string lights", "fairy lights"],
                    (12, 45),
                ),
            ],
        },
        Category {
            name: "Garden",
            kinds: &[
                kind(
                    &[
                        "Tomato",
                        "Basil",
                        "Wildflower",
                        "Sunflower",
                        "Sweet pea",
                        "Heirloom carrot",
                    ],
                    &["seed packet", "seed mix"],
                    (2, 6),
                ),
                kind(
                    &["Brass", "Cast iron", "Bronze", "Copper"],
                    &["garden bell", "hanging bell"],
                    (20, 60),
                ),
                kind(
                    &[
                        "Stainless",
                        "Ash-handled",
                        "Carbon steel",
                        "Folding",
                        "Ergonomic",
                    ],
                    &["trowel", "pruning shears"],
                    (12, 48),
                ),
                kind(
                    &["Galvanised", "Enamelled", "Long-spout", "Painted tin"],
                    &["watering can"],
                    (18, 65),
                ),
            ],
        },
    ],
};

const OUTDOOR: Department = Department {
    name: "Outdoor",
    categories: &[
        Category {
            name: "Camping",
            kinds: &[
                kind(
                    &["Folding", "Tripod", "Aluminium", "Canvas", "Low"],
                    &["camp stool", "camp chair"],
                    (18, 85),
                ),
                kind(
                    &[
                        "Rechargeable",
                        "Red-light",
                        "Waterproof",
                        "Compact",
                        "Ultralight",
                    ],
                    &["head torch", "lantern"],
                    (15, 70),
                ),
                kind(
                    &["Two-person", "Ultralight", "Tunnel", "Dome", "Four-season"],
                    &["tent"],
                    (90, 450),
                ),
                kind(
                    &["Titanium", "Hard-anodised", "Nesting", "Enamel"],
                    &["cook set", "camp pot"],
                    (20, 90),
                ),
            ],
        },
        Category {
            name: "Hiking",
            kinds: &[
                kind(
                    &["Waterproof", "Leather", "Lightweight", "Mid-cut", "Trail"],
                    &["hiking boots", "walking shoes"],
                    (70, 220),
                ),
                kind(
                    &["Carbon", "Aluminium", "Folding", "Cork-grip"],
                    &["trekking poles"],
                    (35, 140),
                ),
                kind(
                    &["Laminated", "Roll-top", "Zip-top", "Clear-window"],
                    &["map case"],
                    (9, 30),
                ),
                kind(
                    &["Insulated", "Stainless steel", "Collapsible", "Filter"],
                    &["water bottle", "flask"],
                    (12, 45),
                ),
            ],
        },
        Category {
            name: "Travel",
            kinds: &[
                kind(
                    &[
                        "Canvas",
                        "Waxed cotton",
                        "Recycled nylon",
                        "Leather",
                        "Foldable",
                    ],
                    &["tote", "weekend bag"],
                    (20, 150),
                ),
                kind(
                    &["Hard-shell", "Cabin-size", "Four-wheel", "Soft-sided"],
                    &["suitcase"],
                    (80, 320),
                ),
                kind(
                    &["Memory foam", "Inflatable", "Merino", "Silk"],
                    &["travel pillow", "sleep mask"],
                    (9, 40),
                ),
                kind(
                    &["Leather", "RFID-blocking", "Slim", "Zipped"],
                    &["passport wallet", "travel wallet"],
                    (14, 60),
                ),
            ],
        },
    ],
};

const CLOTHING: Department = Department {
    name: "Clothing",
    categories: &[
        Category {
            name: "Tops",
            kinds: &[
                kind(
                    &["Linen", "Oxford cotton", "Flannel", "Chambray", "Poplin"],
                    &["button-down shirt", "overshirt"],
                    (28, 95),
                ),
                kind(
                    &[
                        "Merino",
                        "Organic cotton",
                        "Striped",
                        "Slub cotton",
                        "Long-sleeve",
                    ],
                    &["T-shirt", "henley"],
                    (14, 60),
                ),
                kind(
                    &[
                        "Cable-knit",
                        "Lambswool",
                        "Cashmere",
                        "Fisherman",
                        "Zip-neck",
                    ],
                    &["sweater", "cardigan"],
                    (45, 220),
                ),
            ],
        },
        Category {
            name: "Outerwear",
            kinds: &[
                kind(
                    &[
                        "Packable",
                        "Waterproof",
                        "Three-layer",
                        "Hooded",
                        "Lightweight",
                    ],
                    &["rain jacket", "shell jacket"],
                    (60, 260),
                ),
                kind(
                    &["Down", "Quilted", "Synthetic-fill", "Recycled"],
                    &["puffer jacket", "insulated vest"],
                    (70, 280),
                ),
                kind(
                    &["Waxed", "Wool", "Denim", "Duck canvas"],
                    &["field jacket", "chore coat"],
                    (80, 300),
                ),
            ],
        },
        Category {
            name: "Accessories",
            kinds: &[
                kind(
                    &["Merino wool", "Cashmere", "Chunky knit", "Striped", "Plaid"],
                    &["scarf"],
                    (18, 120),
                ),
                kind(
                    &["Fleece", "Ribbed wool", "Bobble", "Fair Isle", "Alpaca"],
                    &["hat", "beanie"],
                    (12, 55),
                ),
                kind(
                    &["Leather", "Suede", "Touchscreen", "Thermal", "Wool-lined"],
                    &["gloves", "mittens"],
                    (15, 80),
                ),
                kind(
                    &["Full-grain leather", "Braided", "Webbing", "Reversible"],
                    &["belt"],
                    (20, 70),
                ),
            ],
        },
    ],
};
