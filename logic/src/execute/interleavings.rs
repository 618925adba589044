//! How many interleavings of the threads' steps a run stands for ([`Interleavings`]): a product of
//! multinomial coefficients, one per barrier interval of each group and one for the groups' steps.
//!
//! The count has hundreds of thousands of digits for a few thousand threads. Multiplied in as a
//! number at every barrier, it would cost time quadratic in the threads, and its decimal digits
//! more still. So it is kept as the exponents of the factorials whose quotient it is, each
//! multinomial adding its own in time linear in its counts, and becomes a number only when asked:
//! exactly ([`Interleavings::exact`]), or to three digits from its logarithm
//! ([`Interleavings::approximate`]), in time about linear in the steps of the run.

use num_bigint::BigUint;
use num_traits::{One, Pow};
use std::collections::BTreeMap;

/// A product of multinomial coefficients, as the product of `n!` to the power of each exponent.
///
/// Two products are equal as numbers, which their exponents need not show (`6! 7! = 10!`).
#[derive(Clone, Debug, Default)]
pub struct Interleavings {
    /// The exponent of `n!` for each `n` from 2 (`0!` and `1!` are 1) whose exponent is not 0.
    factorials: BTreeMap<u64, i64>,
}

impl Interleavings {
    /// Multiplies in the number of ways to interleave sequences of these lengths:
    /// `(c1 + ... + ck)! / (c1! ... ck!)`.
    pub fn multiply_by_multinomial(&mut self, counts: &[u64]) {
        self.add_to_exponent(counts.iter().sum(), 1);
        for &count in counts {
            self.add_to_exponent(count, -1);
        }
    }

    fn add_to_exponent(&mut self, n: u64, change: i64) {
        if n < 2 {
            return;
        }
        let exponent = self.factorials.entry(n).or_insert(0);
        *exponent += change;
        if *exponent == 0 {
            self.factorials.remove(&n);
        }
    }

    /// Whether the count is 1: every multinomial is at least 1, and one of 1 (a single sequence)
    /// cancels its own factorials.
    pub fn is_one(&self) -> bool {
        self.factorials.is_empty()
    }

    /// The count as a number.
    pub fn exact(&self) -> BigUint {
        number(&self.prime_exponents())
    }

    /// The count as a person reads it: exact up to nine digits, else `d.dde N` (its first three
    /// digits and its exponent).
    pub fn approximate(&self) -> String {
        let prime_exponents = self.prime_exponents();
        let log = log10(&prime_exponents);
        // Beyond twelve digits the exact count is not computed: its digits cost time quadratic in
        // its length.
        if log.value - log.error > 12.0 {
            if let Some((exponent, leading)) = leading_digits(log) {
                return format!("{}.{:02}e{exponent}", leading / 100, leading % 100);
            }
        }
        approximate_digits(&number(&prime_exponents).to_string())
    }

    /// The exponent of each prime in the count, for the primes that divide it, in increasing order:
    /// the exponent of `p` in `n!` is `n / p + n / p^2 + ...` (Legendre).
    fn prime_exponents(&self) -> Vec<(u64, u64)> {
        let Some(&largest) = self.factorials.keys().next_back() else { return Vec::new() };
        primes_up_to(largest)
            .into_iter()
            .filter_map(|prime| {
                let exponent: i64 =
                    self.factorials.range(prime..).map(|(&n, &power)| power * legendre(n, prime) as i64).sum();
                let exponent = u64::try_from(exponent).expect("a product of multinomials is an integer");
                (exponent > 0).then_some((prime, exponent))
            })
            .collect()
    }
}

impl PartialEq for Interleavings {
    fn eq(&self, other: &Interleavings) -> bool {
        self.factorials == other.factorials || self.prime_exponents() == other.prime_exponents()
    }
}

/// The exponent of `prime` in `n!`.
fn legendre(n: u64, prime: u64) -> u64 {
    let mut exponent = 0;
    let mut quotient = n / prime;
    while quotient > 0 {
        exponent += quotient;
        quotient /= prime;
    }
    exponent
}

/// The primes up to `largest`, by the sieve of Eratosthenes.
fn primes_up_to(largest: u64) -> Vec<u64> {
    let size = usize::try_from(largest).expect("a run's steps fit in memory") + 1;
    let mut composite = vec![false; size];
    let mut primes = Vec::new();
    for candidate in 2..size {
        if composite[candidate] {
            continue;
        }
        primes.push(candidate as u64);
        for multiple in (candidate.saturating_mul(candidate)..size).step_by(candidate) {
            composite[multiple] = true;
        }
    }
    primes
}

/// The number `p1^e1 p2^e2 ...`.
fn number(prime_exponents: &[(u64, u64)]) -> BigUint {
    let powers: Vec<BigUint> =
        prime_exponents.iter().map(|&(prime, exponent)| BigUint::from(prime).pow(exponent)).collect();
    product(&powers)
}

/// The product of numbers, multiplied in a balanced tree: the operands of each multiplication
/// have about the same length, which fast multiplication needs.
fn product(factors: &[BigUint]) -> BigUint {
    match factors {
        [] => BigUint::one(),
        [factor] => factor.clone(),
        _ => {
            let (left, right) = factors.split_at(factors.len() / 2);
            product(left) * product(right)
        }
    }
}

/// A decimal logarithm computed in floating point, and a bound on how far it may be from the true one.
#[derive(Clone, Copy, Debug)]
struct Logarithm {
    value: f64,
    error: f64,
}

/// The decimal logarithm of `p1^e1 p2^e2 ...`, summed with Neumaier's compensation.
fn log10(prime_exponents: &[(u64, u64)]) -> Logarithm {
    let (mut sum, mut compensation) = (0.0f64, 0.0f64);
    for &(prime, exponent) in prime_exponents {
        let term = exponent as f64 * (prime as f64).log10();
        let next = sum + term;
        compensation += if sum.abs() >= term.abs() { (sum - next) + term } else { (term - next) + sum };
        sum = next;
    }
    let value = sum + compensation;
    // Each term is within three units in the last place of its value (the library's `log10` is
    // within two, the product adds one), and the compensated sum within one of the total: the
    // terms being positive, eight units of the total bound it all. The absolute part covers the
    // rounding of `leading_digits`.
    Logarithm { value, error: 8.0 * f64::EPSILON * value + 1e-12 }
}

/// The exponent and the three leading digits (100 to 999) of `10^log`, or none where the error of
/// the logarithm could change them.
fn leading_digits(log: Logarithm) -> Option<(u64, u64)> {
    let digits = |log: f64| {
        let exponent = log.floor();
        (exponent as u64, 10f64.powf(log - exponent + 2.0).floor() as u64)
    };
    let (low, high) = (digits(log.value - log.error), digits(log.value + log.error));
    (low == high && (100..1000).contains(&low.1)).then_some(low)
}

/// The decimal digits of a count as a person reads them: all of them up to nine, else `d.dde N`.
fn approximate_digits(digits: &str) -> String {
    if digits.len() <= 9 {
        digits.to_string()
    } else {
        format!("{}.{}e{}", &digits[..1], &digits[1..3], digits.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The multinomial as the product of binomials, the way the run computed it before.
    fn multinomial(counts: &[u64]) -> BigUint {
        let mut total = 0u64;
        let mut ways = BigUint::one();
        for &count in counts {
            for taken in 1..=count {
                total += 1;
                ways = ways * BigUint::from(total) / BigUint::from(taken);
            }
        }
        ways
    }

    fn product_of(multinomials: &[&[u64]]) -> (Interleavings, BigUint) {
        let mut interleavings = Interleavings::default();
        let mut expected = BigUint::one();
        for counts in multinomials {
            interleavings.multiply_by_multinomial(counts);
            expected *= multinomial(counts);
        }
        (interleavings, expected)
    }

    #[test]
    fn a_product_of_multinomials_is_exact() {
        let cases: &[&[&[u64]]] = &[
            &[],
            &[&[0, 0], &[5]],
            &[&[1, 1]],
            &[&[2, 3], &[1, 1, 1]],
            &[&[3, 3, 3, 3], &[4, 0, 2], &[12, 7]],
            &[&[40; 30], &[1200, 90]],
        ];
        for multinomials in cases {
            let (interleavings, expected) = product_of(multinomials);
            assert_eq!(interleavings.exact(), expected, "{multinomials:?}");
            assert_eq!(interleavings.is_one(), expected == BigUint::one(), "{multinomials:?}");
        }
    }

    #[test]
    fn the_approximation_shows_the_exact_digits() {
        // From a count of one digit to one of tens of thousands, where the logarithm decides.
        let mut counts = Vec::new();
        for length in 1..=60u64 {
            counts.push(length % 7 + 1);
            let (interleavings, expected) = product_of(&[&counts, &[length, 2 * length]]);
            assert_eq!(interleavings.approximate(), approximate_digits(&expected.to_string()), "{counts:?}");
        }
        let (interleavings, expected) = product_of(&[&[3; 2000], &[5000, 7000]]);
        assert_eq!(interleavings.approximate(), approximate_digits(&expected.to_string()));
        assert_eq!(approximate_digits("123456789"), "123456789");
        assert_eq!(approximate_digits("1234567890"), "1.23e9");
    }

    #[test]
    fn digits_the_rounding_may_change_are_left_to_the_exact_count() {
        let near = |value: f64| leading_digits(Logarithm { value, error: 1e-9 });
        assert_eq!(near(20.0 + 6.295f64.log10()), Some((20, 629)));
        assert_eq!(near(20.0 + 1.23f64.log10()), None, "1.23 may be 1.2299999");
        assert_eq!(near(21.0 - 1e-10), None, "9.99e20 may be 1.00e21");
        // 6! 7! = 10!: equal as numbers, with other exponents.
        let mut factorials = Interleavings::default();
        factorials.add_to_exponent(6, 1);
        factorials.add_to_exponent(7, 1);
        let mut ten = Interleavings::default();
        ten.add_to_exponent(10, 1);
        assert_eq!(factorials, ten);
        assert_ne!(factorials, Interleavings::default());
    }
}
