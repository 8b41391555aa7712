//! The standard library, built into the compiler: `use std::cart(Item = …)`
//! reads `stdlib/cart.wsite` from here, so the compiler stays free of file
//! access and a binary carries the modules it was tested with.

/// Every standard-library module: its name and source text.
pub const MODULES: [(&str, &str); 8] = [
    (
        "application",
        include_str!("../../stdlib/application.wsite"),
    ),
    ("auth", include_str!("../../stdlib/auth.wsite")),
    ("booking", include_str!("../../stdlib/booking.wsite")),
    ("cart", include_str!("../../stdlib/cart.wsite")),
    ("messaging", include_str!("../../stdlib/messaging.wsite")),
    ("pagination", include_str!("../../stdlib/pagination.wsite")),
    ("profile", include_str!("../../stdlib/profile.wsite")),
    ("search", include_str!("../../stdlib/search.wsite")),
];

/// The source of `std::name`.
pub fn module(name: &str) -> Option<&'static str> {
    MODULES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}
