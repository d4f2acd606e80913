#!/bin/sh
# Makes a small CA and certificates for trying tinystore's TLS, with the
# openssl command (the steps of docs/deploy.md, "TLS with a small CA"):
#
#   sh tests/tls/make-certs.sh DIR [HOST]
#
# writes into DIR: ca.pem and ca.key (the CA), server.pem and server.key (a
# certificate for the DNS name HOST, default localhost, and no IP address,
# so that tls://127.0.0.1:PORT is a wrong host name), client.pem and
# client.key (a client certificate signed by the same CA, for mutual TLS),
# and expired.pem and expired.key (a server certificate for HOST that
# expired in 2001). The others last 30 days. The bindings' TLS tests and the
# torture test use it.
set -eu
dir=${1:?usage: make-certs.sh DIR [HOST]}
host=${2:-localhost}
mkdir -p "$dir"
cd "$dir"
days=30
ec() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

ec ca.key
openssl req -x509 -new -key ca.key -sha256 -days "$days" -subj "/CN=tinystore test CA" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
  -out ca.pem

ec server.key
openssl req -new -key server.key -subj "/CN=$host" -out server.csr
printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' "$host" > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -sha256 -days "$days" \
  -extfile server.ext -out server.pem 2>/dev/null

ec client.key
openssl req -new -key client.key -subj "/CN=tinystore client" -out client.csr
printf 'extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n' > client.ext
openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -sha256 -days "$days" \
  -extfile client.ext -out client.pem 2>/dev/null

# `openssl x509` cannot date a certificate in the past; `openssl ca` can.
ec expired.key
openssl req -new -key expired.key -subj "/CN=$host" -addext "subjectAltName=DNS:$host" \
  -addext extendedKeyUsage=serverAuth -out expired.csr
mkdir -p ca.db
: > ca.db/index.txt
echo 01 > ca.db/serial
printf '[ca]\ndefault_ca = test\n[test]\ndatabase = ca.db/index.txt\nserial = ca.db/serial\nnew_certs_dir = ca.db\ndefault_md = sha256\npolicy = any\ncopy_extensions = copy\n[any]\ncommonName = supplied\n' > ca.cnf
openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -notext \
  -startdate 20000101000000Z -enddate 20010101000000Z -in expired.csr -out expired.pem 2>/dev/null

rm -rf server.csr server.ext client.csr client.ext expired.csr ca.srl ca.cnf ca.db
chmod 600 ca.key server.key client.key expired.key
