//! The healthcare catalogue: a clinic's services (primary care,
//! diagnostics, therapy), in categories, with fees and appointment lengths.

use super::{kind_x, Category, Department, Extra, RecordAmount, Rounding, Vocabulary};

pub(in crate::gen) static VOCABULARY: Vocabulary = Vocabulary {
    site_names: &[
        "Riverbend",
        "Maple",
        "Harbor",
        "Sunrise",
        "Willow",
        "Greenfield",
        "Hillcrest",
        "Bayside",
    ],
    site_kinds: &["Clinic", "Health", "Care", "Practice", "Medical Centre"],
    people_table: "Patient",
    things_table: "Service",
    price_label: "Fee",
    departments: &[PRIMARY_CARE, DIAGNOSTICS, THERAPY],
    rounding: Rounding::Whole(5),
    stock: (0, 12),
    extra: Some(Extra {
        field: "minutes",
        shown: "Appointment length: {} minutes",
        step: 5,
    }),
    record_table: "Visit",
    records: "visits",
    record_amount: RecordAmount::PriceTimes(1),
    weekdays_only: true,
    // Clinic hours: the last appointment at a quarter to six.
    record_hours: Some((8 * 60, 17 * 60 + 45)),
    request_table: "Referral",
    verb: "Request",
    requests: "referrals",
    option_label: "Urgency",
    options: ["Routine", "Soon", "Urgent"],
};

const PRIMARY_CARE: Department = Department {
    name: "Primary care",
    categories: &[
        Category {
            name: "Vaccines",
            kinds: &[
                kind_x(
                    &["Seasonal", "High-dose", "Children's", "Adult", "Nasal"],
                    &["flu shot", "flu vaccine"],
                    (15, 60),
                    (10, 15),
                ),
                kind_x(
                    &[
                        "Yellow fever",
                        "Typhoid",
                        "Hepatitis A",
                        "Rabies",
                        "Cholera",
                    ],
                    &["vaccine", "vaccination"],
                    (35, 180),
                    (10, 20),
                ),
                kind_x(
                    &["Tetanus", "Shingles", "Pneumonia", "HPV", "MMR"],
                    &["booster", "jab"],
                    (20, 150),
                    (10, 15),
                ),
            ],
        },
        Category {
            name: "Check-ups",
            kinds: &[
                kind_x(
                    &[
                        "Annual",
                        "Over-40s",
                        "Sports",
                        "Pre-travel",
                        "Well-woman",
                        "Well-man",
                    ],
                    &["health check", "check-up"],
                    (60, 220),
                    (20, 45),
                ),
                kind_x(
                    &[
                        "Blood pressure",
                        "Cholesterol",
                        "Diabetes",
                        "Asthma",
                        "Thyroid",
                    ],
                    &["review", "check"],
                    (25, 90),
                    (10, 20),
                ),
                kind_x(
                    &["Newborn", "Toddler", "School-age", "Teen"],
                    &["development check", "health visit"],
                    (40, 120),
                    (20, 40),
                ),
            ],
        },
        Category {
            name: "Advice",
            kinds: &[
                kind_x(
                    &["Nutrition", "Weight", "Sleep", "Stop-smoking", "Menopause"],
                    &["consultation", "talk"],
                    (40, 150),
                    (20, 45),
                ),
                kind_x(
                    &["Travel", "Pregnancy", "Medication", "Allergy"],
                    &["advice session", "clinic"],
                    (30, 120),
                    (15, 30),
                ),
                kind_x(
                    &["Group", "One-to-one", "Online", "Evening"],
                    &["wellbeing class", "posture class"],
                    (15, 60),
                    (45, 60),
                ),
            ],
        },
    ],
};

const DIAGNOSTICS: Department = Department {
    name: "Diagnostics",
    categories: &[
        Category {
            name: "Tests",
            kinds: &[
                kind_x(
                    &[
                        "Full",
                        "Fasting",
                        "Iron",
                        "Vitamin D",
                        "Liver function",
                        "Kidney function",
                    ],
                    &["blood test", "blood panel"],
                    (30, 180),
                    (10, 15),
                ),
                kind_x(
                    &[
                        "Adult",
                        "Children's",
                        "Contact lens",
                        "Diabetic",
                        "Colour-vision",
                    ],
                    &["eye test", "eye exam"],
                    (25, 95),
                    (20, 40),
                ),
                kind_x(
                    &["Adult", "Children's", "Tinnitus", "Workplace"],
                    &["hearing test", "hearing check"],
                    (30, 120),
                    (20, 45),
                ),
            ],
        },
        Category {
            name: "Screening",
            kinds: &[
                kind_x(
                    &["Skin", "Mole", "Bowel", "Breast", "Cervical", "Prostate"],
                    &["screening", "check"],
                    (40, 250),
                    (10, 30),
                ),
                kind_x(
                    &["Allergy", "Food intolerance", "Hay fever", "Patch"],
                    &["test", "screen"],
                    (60, 250),
                    (20, 60),
                ),
                kind_x(
                    &["Heart", "Lung", "Bone density", "Sleep apnoea"],
                    &["screening", "assessment"],
                    (80, 350),
                    (20, 60),
                ),
            ],
        },
        Category {
            name: "Imaging",
            kinds: &[
                kind_x(
                    &["Chest", "Dental", "Hand", "Knee", "Spine"],
                    &["X-ray"],
                    (60, 220),
                    (10, 20),
                ),
                kind_x(
                    &[
                        "Abdominal",
                        "Pelvic",
                        "Pregnancy",
                        "Thyroid",
                        "Musculoskeletal",
                    ],
                    &["ultrasound", "scan"],
                    (90, 350),
                    (20, 45),
                ),
                kind_x(
                    &["Knee", "Shoulder", "Brain", "Lower back"],
                    &["MRI scan"],
                    (250, 900),
                    (30, 60),
                ),
            ],
        },
    ],
};

const THERAPY: Department = Department {
    name: "Therapy",
    categories: &[
        Category {
            name: "Physiotherapy",
            kinds: &[
                kind_x(
                    &["Back", "Knee", "Shoulder", "Sports injury", "Post-surgery"],
                    &["physio session", "rehab session"],
                    (45, 120),
                    (30, 60),
                ),
                kind_x(
                    &["Deep-tissue", "Sports", "Remedial", "Pregnancy"],
                    &["massage"],
                    (40, 110),
                    (30, 60),
                ),
                kind_x(
                    &[
                        "Clinical Pilates",
                        "Balance",
                        "Hydrotherapy",
                        "Core strength",
                    ],
                    &["class", "session"],
                    (20, 70),
                    (45, 60),
                ),
            ],
        },
        Category {
            name: "Dental",
            kinds: &[
                kind_x(
                    &["Routine", "Children's", "Emergency", "New-patient"],
                    &["dental check", "dental exam"],
                    (30, 120),
                    (15, 30),
                ),
                kind_x(
                    &["Hygienist", "Deep", "Gum", "Express"],
                    &["clean", "cleaning"],
                    (50, 150),
                    (20, 45),
                ),
                kind_x(
                    &["Tooth-coloured", "Amalgam", "Temporary", "White"],
                    &["filling"],
                    (60, 220),
                    (20, 60),
                ),
            ],
        },
        Category {
            name: "Mental health",
            kinds: &[
                kind_x(
                    &[
                        "Talking",
                        "Cognitive behavioural",
                        "Couples",
                        "Family",
                        "Grief",
                    ],
                    &["therapy", "therapy session"],
                    (50, 160),
                    (50, 60),
                ),
                kind_x(
                    &["Stress", "Anxiety", "Mindfulness", "Sleep"],
                    &["workshop", "course"],
                    (25, 90),
                    (60, 90),
                ),
                kind_x(
                    &["Initial", "Follow-up", "Memory", "ADHD"],
                    &["assessment", "consultation"],
                    (90, 300),
                    (30, 60),
                ),
            ],
        },
    ],
};
