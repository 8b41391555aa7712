//! The banking catalogue: a bank's offers (everyday banking, saving,
//! borrowing), in categories, with the fees banks charge for them.

use super::{kind, Category, Department, RecordAmount, Rounding, Vocabulary};

pub(in crate::gen) static VOCABULARY: Vocabulary = Vocabulary {
    site_names: &[
        "Cascade",
        "Granite",
        "Harborline",
        "Union",
        "Meridian",
        "Oakridge",
        "Lakeshore",
        "Summit",
    ],
    site_kinds: &["Savings", "Trust", "Bank", "Mutual", "Credit Union"],
    people_table: "Client",
    things_table: "Offer",
    price_label: "Fee",
    departments: &[EVERYDAY, SAVING, BORROWING],
    rounding: Rounding::Whole(1),
    stock: (0, 10),
    extra: None,
    record_table: "Payment",
    records: "payments",
    record_amount: RecordAmount::Payment(10, 2400),
    weekdays_only: false,
    record_hours: None,
    request_table: "Enquiry",
    verb: "Request",
    requests: "enquiries",
    option_label: "Contact by",
    options: ["Email", "Phone", "Branch"],
};

const EVERYDAY: Department = Department {
    name: "Everyday banking",
    categories: &[
        Category {
            name: "Cards",
            kinds: &[
                kind(
                    &[
                        "Travel", "Cashback", "Student", "Platinum", "Rewards", "Low-rate",
                    ],
                    &["credit card"],
                    (15, 195),
                ),
                kind(
                    &["Contactless", "Prepaid", "Teen", "Gold", "Virtual"],
                    &["debit card"],
                    (1, 30),
                ),
                kind(
                    &["Digital", "Birthday", "Wedding", "Holiday", "Thank-you"],
                    &["gift card"],
                    (25, 200),
                ),
            ],
        },
        Category {
            name: "Accounts",
            kinds: &[
                kind(
                    &[
                        "Student", "Everyday", "Premier", "Joint", "Basic", "Graduate",
                    ],
                    &["current account", "checking account"],
                    (1, 25),
                ),
                kind(
                    &["Business", "Sole-trader", "Charity", "Start-up", "Club"],
                    &["account", "banking package"],
                    (5, 45),
                ),
                kind(
                    &["Junior", "Children's", "Youth", "First"],
                    &["saver account", "pocket-money account"],
                    (1, 5),
                ),
            ],
        },
        Category {
            name: "Foreign currency",
            kinds: &[
                kind(
                    &["Euro", "Dollar", "Yen", "Franc", "Krona", "Multi-currency"],
                    &["currency order", "travel money card"],
                    (3, 15),
                ),
                kind(
                    &["International", "SEPA", "Same-day", "Scheduled", "Priority"],
                    &["transfer", "wire"],
                    (5, 40),
                ),
                kind(
                    &[
                        "Worldwide",
                        "Europe",
                        "Single-trip",
                        "Annual multi-trip",
                        "Family",
                    ],
                    &["travel insurance"],
                    (25, 240),
                ),
            ],
        },
    ],
};

const SAVING: Department = Department {
    name: "Saving",
    categories: &[
        Category {
            name: "Savings",
            kinds: &[
                kind(
                    &[
                        "Easy-access",
                        "Regular",
                        "Instant-access",
                        "Bonus",
                        "Online",
                    ],
                    &["savings account", "saver"],
                    (1, 10),
                ),
                kind(
                    &[
                        "One-year",
                        "Two-year",
                        "Green",
                        "Premium",
                        "Fixed-rate",
                        "Index-linked",
                    ],
                    &["savings bond", "bond"],
                    (5, 25),
                ),
                kind(
                    &["Cash", "Stocks and shares", "Junior", "Lifetime"],
                    &["ISA", "tax-free saver"],
                    (1, 20),
                ),
            ],
        },
        Category {
            name: "Deposits",
            kinds: &[
                kind(
                    &[
                        "Three-month",
                        "Six-month",
                        "One-year fixed",
                        "Two-year fixed",
                        "Five-year fixed",
                    ],
                    &["deposit", "term deposit"],
                    (5, 25),
                ),
                kind(
                    &["Small", "Medium", "Large", "Vault", "Fire-proof"],
                    &["safe box", "safe deposit box"],
                    (60, 300),
                ),
                kind(
                    &["Notice", "Thirty-day notice", "Flexible", "Limited-access"],
                    &["deposit account", "savings pot"],
                    (1, 10),
                ),
            ],
        },
        Category {
            name: "Retirement",
            kinds: &[
                kind(
                    &["Personal", "Workplace", "Self-invested", "Stakeholder"],
                    &["pension", "pension plan"],
                    (20, 150),
                ),
                kind(
                    &["Retirement", "Pension", "Annuity", "Drawdown"],
                    &["review", "check"],
                    (50, 250),
                ),
                kind(
                    &["Will", "Estate", "Inheritance", "Trust"],
                    &["planning session", "advice session"],
                    (75, 350),
                ),
            ],
        },
    ],
};

const BORROWING: Department = Department {
    name: "Borrowing",
    categories: &[
        Category {
            name: "Loans",
            kinds: &[
                kind(
                    &[
                        "Car",
                        "Home improvement",
                        "Wedding",
                        "Debt consolidation",
                        "Personal",
                        "Green",
                    ],
                    &["loan"],
                    (25, 150),
                ),
                kind(
                    &["Student", "Graduate", "Arranged", "Flexible"],
                    &["overdraft"],
                    (1, 20),
                ),
                kind(
                    &["Credit", "Budget", "Debt", "Money"],
                    &["health check", "advice call"],
                    (10, 40),
                ),
            ],
        },
        Category {
            name: "Mortgages",
            kinds: &[
                kind(
                    &[
                        "First-time buyer",
                        "Fixed-rate",
                        "Tracker",
                        "Buy-to-let",
                        "Offset",
                        "Remortgage",
                    ],
                    &["mortgage"],
                    (250, 1500),
                ),
                kind(
                    &["Home loan", "Mortgage", "Property", "Equity release"],
                    &["review", "consultation"],
                    (50, 200),
                ),
                kind(
                    &["Buildings", "Contents", "Home", "Landlord"],
                    &["insurance", "cover"],
                    (90, 450),
                ),
            ],
        },
        Category {
            name: "Business lending",
            kinds: &[
                kind(
                    &[
                        "Start-up",
                        "Asset finance",
                        "Equipment",
                        "Working-capital",
                        "Bridging",
                    ],
                    &["loan", "facility"],
                    (100, 900),
                ),
                kind(
                    &["Business", "Corporate", "Fleet", "Purchasing"],
                    &["credit card", "charge card"],
                    (20, 250),
                ),
                kind(
                    &["Invoice finance", "Payroll", "Merchant", "Card terminal"],
                    &["service", "package"],
                    (15, 120),
                ),
            ],
        },
    ],
};
