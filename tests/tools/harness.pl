#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/harness.pl - what tests/run-all.sh runs instead of plain `prove -jN`:
# the same TAP::Harness (prove's engine, same output and summary), with rules
# prove's command line cannot say:
#   - the kernel tests (files matching t07NN-kernel-* or t0711, each booting a QEMU
#     guest that takes a core) run in two lanes, the files taken in turn: their guests
#     run one at a time (tests/lib_kernel.sh's lock: two at once on two cores pushed
#     each past its time limit), a file's host part beside the other lane's guest;
#   - the files that mostly wait (t085N-shared-vg*: sanlock lockspace joins and lease
#     expiry, minutes of idle time each) run one after another in a lane of their own,
#     the waiting lane, beside the others instead of holding one of their slots;
#   - the other files fill the free slots, at most JOBS - 1 of them at a time (the
#     second guest lane and the waiting lane are two jobs more than JOBS, and add no
#     CPU-bound job: their files wait for the guest lock or for sanlock).
#
#   perl tests/tools/harness.pl JOBS FILE...     exit 0 when every test passed
use strict;
use warnings;
use TAP::Harness;
use TAP::Parser::Scheduler;

# TAP::Parser::Scheduler with a cap on the files of neither lane running at once: a
# job of the rest found while the cap is reached waits in a queue (in order), and a
# spinner ("nothing to start now") is returned until one of them finishes.  The queue
# is only filled while rest jobs run, so a spinner never leaves the harness idle.
package LaneScheduler {
use parent -norequire, 'TAP::Parser::Scheduler';
our ($cap, $guest_re, $wait_re);
my $running = 0;
my @held;

sub _start {
    my $job = shift;
    $running++;
    $job->on_finish(sub { $running-- });
    return $job;
}

sub get_job {
    my $self = shift;
    return _start(shift @held) if @held && $running < $cap;
    while (1) {
        my $job = $self->SUPER::get_job(@_);
        if (!defined $job) {
            return @held ? TAP::Parser::Scheduler::Spinner->new : undef;
        }
        return $job if $job->is_spinner || $job->filename =~ $guest_re || $job->filename =~ $wait_re;
        return _start($job) if !@held && $running < $cap;
        push @held, $job;
    }
}
}

package main;

my $jobs = shift @ARGV;
die "usage: harness.pl JOBS FILE...\n" unless defined $jobs && $jobs =~ /^[1-9][0-9]*$/ && @ARGV;

my $guest_re = qr{/t07\d\d-(kernel-|lvm2-testsuite)};
my $wait_re  = qr{/t085\d-shared-vg};
my @guests = grep { m/$guest_re/ } @ARGV;
my @waits  = grep { !m/$guest_re/ && m/$wait_re/ } @ARGV;
my @rest   = grep { !m/$guest_re/ && !m/$wait_re/ } @ARGV;
# two guest lanes, the files taken in turn: the guests themselves still run one at a
# time (tests/lib_kernel.sh's lock), but a file's host part (user-space backend before
# and after its guest, --disk-dir files) runs while the other lane's guest does
my @guest_lanes = ([], []);
push @{ $guest_lanes[$_ % 2] }, $guests[$_] for 0 .. $#guests;
my @groups;
push @groups, map { { seq => $_ } } grep { @$_ } @guest_lanes;
push @groups, { seq => [@waits] }  if @waits;
push @groups, { par => [@rest] }   if @rest;

# the rest gets the slots the guest lane leaves: JOBS - 1 when there are guests
$LaneScheduler::cap = @guests ? ($jobs > 1 ? $jobs - 1 : 1) : $jobs;
$LaneScheduler::guest_re = $guest_re;
$LaneScheduler::wait_re  = $wait_re;

my $harness = TAP::Harness->new({
    jobs            => $jobs + ($jobs > 1 ? (@waits ? 1 : 0) + (@guests > 1 ? 1 : 0) : 0),
    timer           => 1,
    exec            => [ 'bash', 'tests/tools/tap-exec.sh' ],
    rules           => { par => \@groups },
    scheduler_class => 'LaneScheduler',
});
my $aggregator = $harness->runtests(@ARGV);
exit($aggregator->all_passed ? 0 : 1);
