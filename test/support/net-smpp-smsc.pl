#!/usr/bin/perl
# An SMSC for tests that shares no code with our client: Debian's Net::SMPP (libnet-smpp-perl) in its
# server role. Usage: net-smpp-smsc.pl PORT. Prints one line per event on stdout:
#   listening PORT | bound SYSTEM_ID | submit DEST ID SEQ/TOTAL VALIDITY | receipt_resp STATUS | unbound
# (VALIDITY: the submit_sm's validity_period as sent, '-' when empty)
# Message ids are hexadecimal (A7BF0 upwards). The receipt form follows the destination's last digit:
#   0 text only, id in decimal            1 text only, id in zero-padded decimal
#   2 TLVs only, id in zero-padded hex    3 text and TLVs, id as in submit_sm_resp
#   4 text only, decimal, sent BEFORE the submit_sm_resp
#   5 text only, decimal; part 1 (or the only part) UNDELIV, the other parts DELIVRD
#   6 as 0, plus a receipt for an id this SMSC never issued
#   7 as 0, then the handset writes back (mobile-originated deliver_sm, from DEST to the sender):
#     "Hi @home £5" in GSM 03.38, "Привет 👋" in UCS-2, "Café olé" in Latin-1, a three-part GSM
#     message with an 8-bit UDH reference sent as parts 3, 1, 2, and a two-part UCS-2 message
#     with sar_* TLVs sent as parts 2, 1 whose emoji is split between the parts; then "STOP".
#     Each answer to them prints "mo_resp STATUS".
#   8 as 0, sent twice, then a third time as UNDELIV (an SMSC resending; the first end state counts)
use strict;
use warnings;
use Net::SMPP;
use POSIX qw(strftime);
use Encode qw(encode);

$| = 1;
my $port = shift @ARGV or die "usage: $0 PORT\n";
# Net::SMPP waits 5 s by default for a connection (and for a PDU), then gives up (and this SMSC would
# exit): an hour lets clients bind late, sit idle, or bind again after a drop.
my $server = Net::SMPP->new_listen('127.0.0.1', port => $port, smpp_version => 0x34, timeout => 3600)
  or die "cannot listen on $port: $!\n";
print "listening $port\n";

my $next_id = 0xA7BF0;
my %state = (DELIVRD => 2, UNDELIV => 5);

sub receipt {
  my ($conn, $dest, $source, $id_num, $id_hex, $stat) = @_;
  my $form = substr($dest, -1);
  my $now = strftime('%y%m%d%H%M', gmtime);
  my ($text_id, $tlv_id) = ($id_num, undef);
  $text_id = sprintf('%010d', $id_num) if $form eq '1';
  $tlv_id = sprintf('%08x', $id_num) if $form eq '2';
  $tlv_id = $id_hex if $form eq '3';
  my $text = $form eq '2' ? '' : "id:$text_id sub:001 dlvrd:" . ($stat eq 'DELIVRD' ? '001' : '000')
    . " submit date:$now done date:$now stat:$stat err:" . ($stat eq 'DELIVRD' ? '000' : '001') . ' text:';
  my @tlvs = defined $tlv_id ? (receipted_message_id => "$tlv_id\0", message_state => pack('C', $state{$stat})) : ();
  $conn->deliver_sm(
    source_addr_ton => 1, source_addr_npi => 1, source_addr => $dest,
    dest_addr_ton => 5, dest_addr_npi => 0, destination_addr => $source,
    esm_class => 0x04, data_coding => 0, short_message => $text, @tlvs, async => 1,
  );
}

my @mo_pending = ();

sub mo {
  my ($conn, $from, $to, $coding, $bytes, %extra) = @_;
  my $seq = $conn->deliver_sm(
    source_addr_ton => 1, source_addr_npi => 1, source_addr => $from,
    dest_addr_ton => 1, dest_addr_npi => 1, destination_addr => $to,
    esm_class => ($extra{udh} ? 0x40 : 0), data_coding => $coding,
    short_message => ($extra{udh} // '') . $bytes,
    ($extra{sar} ? (sar_msg_ref_num => pack('n', $extra{sar}[0]), sar_total_segments => pack('C', $extra{sar}[1]),
      sar_segment_seqnum => pack('C', $extra{sar}[2])) : ()),
    async => 1,
  );
  push @mo_pending, $seq;
}

sub write_back {
  my ($conn, $from, $to) = @_;
  mo($conn, $from, $to, 0, "Hi \x00home \x015");
  mo($conn, $from, $to, 8, encode('UTF-16BE', "\x{41f}\x{440}\x{438}\x{432}\x{435}\x{442} \x{1F44B}"));
  mo($conn, $from, $to, 3, encode('latin1', "Caf\x{e9} ol\x{e9}"));
  my @parts = ('first part, ', 'second part, ', 'third part.');
  for my $i (3, 1, 2) {
    mo($conn, $from, $to, 0, $parts[$i - 1], udh => pack('C6', 5, 0, 3, 0x42, 3, $i));
  }
  my $ucs = encode('UTF-16BE', "Emoji \x{1F600} split");
  my $cut = 2 * 7;    # after "Emoji " and the high surrogate
  my @halves = (substr($ucs, 0, $cut), substr($ucs, $cut));
  for my $i (2, 1) {
    mo($conn, $from, $to, 8, $halves[$i - 1], sar => [0x1234, 2, $i]);
  }
  mo($conn, $from, $to, 0, 'STOP');
}

while (my $conn = $server->accept) {
  my @after_resp;
  while (my $pdu = $conn->read_pdu) {
    my $cmd = $pdu->{cmd};
    if ($cmd == Net::SMPP::CMD_bind_transceiver) {
      $conn->bind_transceiver_resp(seq => $pdu->{seq}, system_id => 'net-smpp');
      print "bound $pdu->{system_id}\n";
    } elsif ($cmd == Net::SMPP::CMD_enquire_link) {
      $conn->enquire_link_resp(seq => $pdu->{seq});
    } elsif ($cmd == Net::SMPP::CMD_unbind) {
      $conn->unbind_resp(seq => $pdu->{seq});
      print "unbound\n";
      last;
    } elsif ($cmd == Net::SMPP::CMD_deliver_sm_resp) {
      my $seq = $pdu->{seq};
      if (grep { $_ == $seq } @mo_pending) {
        @mo_pending = grep { $_ != $seq } @mo_pending;
        print "mo_resp $pdu->{status}\n";
      } else {
        print "receipt_resp $pdu->{status}\n";
      }
    } elsif ($cmd == Net::SMPP::CMD_submit_sm) {
      my ($seq, $total) = (1, 1);
      if (($pdu->{esm_class} & 0x40) && length($pdu->{short_message}) >= 6) {
        ($total, $seq) = unpack('x4CC', $pdu->{short_message});
      }
      my $id_num = $next_id++;
      my $id_hex = sprintf('%X', $id_num);
      my ($dest, $source) = ($pdu->{destination_addr}, $pdu->{source_addr});
      my $form = substr($dest, -1);
      my $stat = ($form eq '5' && $seq == 1) ? 'UNDELIV' : 'DELIVRD';
      my $validity = (defined $pdu->{validity_period} && length $pdu->{validity_period}) ? $pdu->{validity_period} : '-';
      print "submit $dest $id_hex $seq/$total $validity\n";
      receipt($conn, $dest, $source, $id_num, $id_hex, $stat) if $form eq '4';
      $conn->submit_sm_resp(seq => $pdu->{seq}, message_id => $id_hex);
      if ($form ne '4') {
        receipt($conn, $dest, $source, $id_num, $id_hex, $stat);
        receipt($conn, $dest, $source, 999999999, '3B9AC9FF', 'DELIVRD') if $form eq '6';
        if ($form eq '8') {
          receipt($conn, $dest, $source, $id_num, $id_hex, $stat);
          receipt($conn, $dest, $source, $id_num, $id_hex, 'UNDELIV');
        }
        write_back($conn, $dest, $source) if $form eq '7';
      }
    } else {
      $conn->generic_nack(seq => $pdu->{seq}, status => 0x03);
    }
  }
  $conn->close;
}
