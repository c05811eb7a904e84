#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/harness.pl - what tests/run-all.sh runs instead of plain `prove -jN`:
# the same TAP::Harness (prove's engine, same output and summary), with one rule
# prove's command line cannot say: the kernel tests (files matching t07NN-kernel-*
# or t0711, each booting a QEMU guest that takes both cores) run one after another,
# in order, in parallel with everything else; the other files fill the free slots.
#
#   perl tests/tools/harness.pl JOBS FILE...     exit 0 when every test passed
use strict;
use warnings;
use TAP::Harness;

my $jobs = shift @ARGV;
die "usage: harness.pl JOBS FILE...\n" unless defined $jobs && $jobs =~ /^[1-9][0-9]*$/ && @ARGV;

my @guests = grep { m{/t07\d\d-(kernel-|lvm2-testsuite)} } @ARGV;
my @rest   = grep { !m{/t07\d\d-(kernel-|lvm2-testsuite)} } @ARGV;
my @groups;
push @groups, { seq => [@guests] } if @guests;
push @groups, { par => [@rest] }   if @rest;

my $harness = TAP::Harness->new({
    jobs  => $jobs,
    timer => 1,
    exec  => [ 'bash', 'tests/tools/tap-exec.sh' ],
    rules => { par => \@groups },
});
my $aggregator = $harness->runtests(@ARGV);
exit($aggregator->all_passed ? 0 : 1);
