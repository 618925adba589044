//! encoder
