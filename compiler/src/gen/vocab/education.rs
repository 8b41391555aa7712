//! The education catalogue: a school's courses (sciences, humanities,
//! arts), in subjects, with tuition and credits.

use super::{kind_x, Category, Department, Extra, RecordAmount, Rounding, Vocabulary};

pub(in crate::gen) static VOCABULARY: Vocabulary = Vocabulary {
    site_names: &[
        "Northfield",
        "Lakeside",
        "Summit",
        "Elm",
        "Westbrook",
        "Riverton",
        "Hollis",
        "Ashford",
    ],
    site_kinds: &[
        "College",
        "School",
        "Academy",
        "Institute",
        "Community College",
    ],
    people_table: "Student",
    things_table: "Course",
    price_label: "Tuition",
    departments: &[SCIENCES, HUMANITIES, ARTS],
    rounding: Rounding::Whole(10),
    stock: (0, 30),
    extra: Some(Extra {
        field: "credits",
        shown: "Credits: {}",
        step: 1,
    }),
    record_table: "TuitionPayment",
    records: "tuition payments",
    record_amount: RecordAmount::PriceTimes(1),
    weekdays_only: true,
    record_hours: None,
    request_table: "Enrolment",
    verb: "Enrol in",
    requests: "enrolments",
    option_label: "Format",
    options: ["In person", "Online", "Evening"],
};

const SCIENCES: Department = Department {
    name: "Sciences",
    categories: &[
        Category {
            name: "Mathematics",
            kinds: &[
                kind_x(
                    &["Introductory", "Linear", "Abstract", "College", "Applied"],
                    &["algebra"],
                    (300, 900),
                    (3, 5),
                ),
                kind_x(
                    &[
                        "Single-variable",
                        "Multivariable",
                        "Applied",
                        "Honors",
                        "Vector",
                    ],
                    &["calculus"],
                    (400, 1000),
                    (4, 5),
                ),
                kind_x(
                    &["Introductory", "Applied", "Bayesian", "Business", "Medical"],
                    &["statistics"],
                    (300, 900),
                    (3, 4),
                ),
            ],
        },
        Category {
            name: "Life sciences",
            kinds: &[
                kind_x(
                    &["Cell", "Marine", "Human", "Molecular", "Plant", "Field"],
                    &["biology"],
                    (350, 1100),
                    (4, 5),
                ),
                kind_x(
                    &["Human", "Comparative", "Functional", "Clinical"],
                    &["anatomy", "physiology"],
                    (400, 1100),
                    (4, 5),
                ),
                kind_x(
                    &["Introductory", "Environmental", "Applied", "Marine"],
                    &["ecology", "microbiology"],
                    (350, 950),
                    (3, 4),
                ),
            ],
        },
        Category {
            name: "Physical sciences",
            kinds: &[
                kind_x(
                    &["General", "Organic", "Inorganic", "Analytical", "Physical"],
                    &["chemistry"],
                    (400, 1100),
                    (4, 5),
                ),
                kind_x(
                    &["Classical", "Modern", "Introductory", "Quantum", "Applied"],
                    &["physics", "mechanics"],
                    (400, 1100),
                    (4, 5),
                ),
                kind_x(
                    &["Introductory", "Planetary", "Environmental", "Ocean"],
                    &["earth science", "geology"],
                    (300, 900),
                    (3, 4),
                ),
            ],
        },
    ],
};

const HUMANITIES: Department = Department {
    name: "Humanities",
    categories: &[
        Category {
            name: "Languages",
            kinds: &[
                kind_x(
                    &[
                        "Beginner",
                        "Intermediate",
                        "Advanced",
                        "Conversational",
                        "Business",
                    ],
                    &["French", "Spanish", "Italian", "German", "Japanese"],
                    (250, 800),
                    (2, 4),
                ),
                kind_x(
                    &["Introduction to", "Topics in", "Foundations of"],
                    &["linguistics", "translation"],
                    (300, 800),
                    (3, 4),
                ),
                kind_x(
                    &["Beginning", "Reading", "Intensive"],
                    &["Latin", "Ancient Greek", "Sanskrit"],
                    (300, 800),
                    (3, 4),
                ),
            ],
        },
        Category {
            name: "History",
            kinds: &[
                kind_x(
                    &["Medieval", "Early modern", "Modern", "Ancient", "Colonial"],
                    &["European history", "world history"],
                    (300, 900),
                    (3, 4),
                ),
                kind_x(
                    &["Economic", "Social", "Urban", "Environmental", "Maritime"],
                    &["history"],
                    (300, 900),
                    (3, 4),
                ),
                kind_x(
                    &["Introduction to", "Topics in", "Seminar in"],
                    &["archaeology", "art history", "museum studies"],
                    (300, 950),
                    (3, 4),
                ),
            ],
        },
        Category {
            name: "Social studies",
            kinds: &[
                kind_x(
                    &[
                        "Principles of",
                        "Development",
                        "Behavioral",
                        "Labor",
                        "Public",
                    ],
                    &["economics"],
                    (350, 950),
                    (3, 4),
                ),
                kind_x(
                    &[
                        "Introductory",
                        "Social",
                        "Developmental",
                        "Cognitive",
                        "Abnormal",
                    ],
                    &["psychology"],
                    (350, 950),
                    (3, 4),
                ),
                kind_x(
                    &["Human", "Urban", "Political", "Economic", "Cultural"],
                    &["geography"],
                    (300, 850),
                    (3, 4),
                ),
            ],
        },
    ],
};

const ARTS: Department = Department {
    name: "Arts",
    categories: &[
        Category {
            name: "Studio art",
            kinds: &[
                kind_x(
                    &[
                        "Figure",
                        "Observational",
                        "Charcoal",
                        "Botanical",
                        "Foundation",
                    ],
                    &["drawing"],
                    (200, 700),
                    (2, 3),
                ),
                kind_x(
                    &["Oil", "Watercolour", "Acrylic", "Landscape", "Portrait"],
                    &["painting"],
                    (250, 800),
                    (2, 4),
                ),
                kind_x(
                    &["Wheel-thrown", "Hand-built", "Studio", "Sculptural"],
                    &["ceramics"],
                    (250, 800),
                    (2, 3),
                ),
            ],
        },
        Category {
            name: "Music",
            kinds: &[
                kind_x(
                    &["Music", "Jazz", "Tonal", "Modal"],
                    &["theory", "harmony"],
                    (250, 800),
                    (3, 4),
                ),
                kind_x(
                    &["Chamber", "Choral", "Jazz", "Wind"],
                    &["ensemble", "performance"],
                    (150, 500),
                    (1, 2),
                ),
                kind_x(
                    &["Electronic", "Film", "Digital", "Song"],
                    &["composition", "music production"],
                    (300, 900),
                    (3, 4),
                ),
            ],
        },
        Category {
            name: "Writing",
            kinds: &[
                kind_x(
                    &[
                        "Creative",
                        "Academic",
                        "Technical",
                        "Business",
                        "Persuasive",
                    ],
                    &["writing"],
                    (250, 800),
                    (3, 4),
                ),
                kind_x(
                    &["Short", "Flash", "Speculative", "Literary"],
                    &["fiction", "fiction workshop"],
                    (250, 800),
                    (3, 4),
                ),
                kind_x(
                    &["Introductory", "Digital", "Data", "Investigative", "Sports"],
                    &["journalism"],
                    (300, 850),
                    (3, 4),
                ),
            ],
        },
    ],
};
