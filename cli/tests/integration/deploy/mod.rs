//! The deploy units (deploy/): systemd units checked and run.

mod units;
