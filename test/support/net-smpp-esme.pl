#!/usr/bin/perl
# An ESME for tests that shares no code with our server: Debian's Net::SMPP (libnet-smpp-perl) in
# its client role, driven by JSON lines on stdin, one JSON line out per answer. Usage:
# net-smpp-esme.pl HOST PORT. Requests:
#   {"op":"send","cmd":"submit_sm","params":{...},"hex":{"short_message":"..."},"count":N}
#       sends the PDU (N times, pipelined, without waiting); answers {"sent":[seq,...]}
#   {"op":"read","count":N}   reads N PDUs; answers {"pdus":[{cmd,status,seq,message_id},...]}
#                             ({"eof":true,...} when the server closed first)
#   {"op":"close"}            closes the connection
#   {"op":"deliver_status","status":N}  answers later deliver_sm with this command_status
# A deliver_sm or enquire_link the server sends is answered at once (and still listed by read);
# a deliver_sm is listed with its esm_class and receipted_message_id too.
use strict;
use warnings;
use Net::SMPP;
use JSON::PP;

$| = 1;
my ($host, $port) = @ARGV;
my $json = JSON::PP->new->canonical;
my $deliver_status = 0;
my $smpp = Net::SMPP->new_connect($host, port => $port, smpp_version => 0x34, async => 1, timeout => 60)
  or do { print $json->encode({ error => "cannot connect: $!" }), "\n"; exit 1 };
print $json->encode({ connected => JSON::PP::true }), "\n";

my %sub_for = (
  bind_transceiver => sub { $smpp->bind_transceiver(@_) },
  bind_transmitter => sub { $smpp->bind_transmitter(@_) },
  bind_receiver    => sub { $smpp->bind_receiver(@_) },
  submit_sm        => sub { $smpp->submit_sm(@_) },
  data_sm          => sub { $smpp->data_sm(@_) },
  enquire_link     => sub { $smpp->enquire_link(@_) },
  unbind           => sub { $smpp->unbind(@_) },
  query_sm         => sub { $smpp->query_sm(@_) },
);

while (my $line = <STDIN>) {
  my $req = $json->decode($line);
  my $op = $req->{op};
  if ($op eq 'send') {
    my @args = %{ $req->{params} || {} };
    for my $k (keys %{ $req->{hex} || {} }) { push @args, $k, pack('H*', $req->{hex}{$k}); }
    my @seqs;
    for (1 .. ($req->{count} || 1)) { push @seqs, $sub_for{ $req->{cmd} }->(@args); }
    print $json->encode({ sent => \@seqs }), "\n";
  } elsif ($op eq 'read') {
    my @pdus;
    my $eof = JSON::PP::false;
    for (1 .. ($req->{count} || 1)) {
      my $pdu = $smpp->read_pdu();
      if (!$pdu) { $eof = JSON::PP::true; last; }
      my %out = (cmd => sprintf('0x%08x', $pdu->{cmd}), status => $pdu->{status}, seq => $pdu->{seq});
      $out{message_id} = $pdu->{message_id} if defined $pdu->{message_id};
      $out{system_id} = $pdu->{system_id} if defined $pdu->{system_id};
      if ($pdu->{cmd} == 0x00000005) {    # deliver_sm
        $out{short_message} = $pdu->{short_message};
        $out{esm_class} = $pdu->{esm_class};
        ($out{receipted_message_id} = $pdu->{receipted_message_id}) =~ s/\0$// if defined $pdu->{receipted_message_id};
        $smpp->deliver_sm_resp(seq => $pdu->{seq}, status => $deliver_status, message_id => '');
      } elsif ($pdu->{cmd} == 0x00000015) {    # enquire_link
        $smpp->enquire_link_resp(seq => $pdu->{seq});
      } elsif ($pdu->{cmd} == 0x00000006) {    # unbind
        $smpp->unbind_resp(seq => $pdu->{seq});
      }
      push @pdus, \%out;
    }
    print $json->encode({ pdus => \@pdus, eof => $eof }), "\n";
  } elsif ($op eq 'deliver_status') {
    $deliver_status = $req->{status};
    print $json->encode({ deliver_status => $deliver_status }), "\n";
  } elsif ($op eq 'close') {
    close $smpp;
    print $json->encode({ closed => JSON::PP::true }), "\n";
    exit 0;
  }
}
