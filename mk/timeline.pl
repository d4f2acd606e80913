#!/usr/bin/perl
# Reads a `make --trace` log whose lines start with "[HH:MM:SS] " (as
# .ci/run writes it) and prints how long each target's recipe ran: from the
# line where make starts a target to the line where it starts the next one
# (prerequisites run before their target, so each counts for itself).
# Targets that took under 10 s are left out; the total comes last.
use strict;
use warnings;

my (@order, %took, $current, $since, $first, $last);
sub seconds { my ($h, $m, $s) = split /:/, shift; return $h * 3600 + $m * 60 + $s; }
while (my $line = <>) {
    next unless $line =~ /^\[(\d\d:\d\d:\d\d)\] (.*)$/;
    my ($at, $text) = (seconds($1), $2);
    $at += 86400 while defined $last && $at < $last;    # past midnight
    $first //= $at;
    $last = $at;
    next unless $text =~ /^\S+:\d+: (?:target '([^']+)' does not exist|update target '([^']+)' due to)/;
    my $target = $1 // $2;
    if (defined $current) { $took{$current} += $at - $since; }
    push @order, $target unless exists $took{$target};
    $took{$target} //= 0;
    ($current, $since) = ($target, $at);
}
$took{$current} += $last - $since if defined $current;
exit 0 unless defined $first;
printf "%-28s %8s\n", "target", "seconds";
for my $target (@order) {
    printf "%-28s %8d\n", $target, $took{$target} if $took{$target} >= 10;
}
printf "%-28s %8d\n", "all", $last - $first;
