#!/bin/sh
# Regenerates the test-only TLS material in this directory (see README.md). Needs openssl 3.
set -eu
cd "$(dirname "$0")"
days=36500

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key
openssl req -x509 -new -key ca.key -sha256 -days $days -subj "/CN=Paduraksa Test CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out ca.pem

issue() { # name subject extensions
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key"
  openssl req -new -key "$1.key" -subj "$2" -out "$1.csr"
  printf '%s\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -sha256 -days $days \
    -extfile "$1.ext" -out "$1.pem"
  rm "$1.csr" "$1.ext"
}

issue a-test "/CN=a.test" "subjectAltName=DNS:a.test,DNS:*.a.test
extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature"
issue b-test "/CN=b.test" "subjectAltName=DNS:b.test
extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature"
issue localhost "/CN=localhost" "subjectAltName=DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature"
issue client "/CN=client.test" "extendedKeyUsage=clientAuth
keyUsage=critical,digitalSignature"

# An RSA server certificate too, so both key types are exercised.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out c-test.key
openssl req -new -key c-test.key -subj "/CN=c.test" -out c-test.csr
printf 'subjectAltName=DNS:c.test\nextendedKeyUsage=serverAuth\n' > c-test.ext
openssl x509 -req -in c-test.csr -CA ca.pem -CAkey ca.key -CAcreateserial -sha256 -days $days \
  -extfile c-test.ext -out c-test.pem
rm c-test.csr c-test.ext ca.srl

# Chains as a server sends them: leaf then CA.
for n in a-test b-test c-test localhost client; do cat "$n.pem" ca.pem > "$n-chain.pem"; done
