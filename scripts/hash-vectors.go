// Helper for scripts/hash-vectors.mjs: kubectl's ConfigMapHash algorithm
// (k8s.io/kubectl/pkg/util/hash) run with the local Go toolchain's encoding/json, for
// inputs kubectl's CLI cannot express (keys outside [-._a-zA-Z0-9], invalid UTF-8 in
// data, a nil data map) and to record the escaping of the Go release that runs it.
// Reads JSON lines {"name": b64, "data": [[b64 key, b64 value]...] | null,
// "binaryData": [[b64 key, b64 value]...]}, writes one 10-character hash per line.
// Run: go run scripts/hash-vectors.go < input
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
)

type input struct {
	Name       string       `json:"name"`
	Data       *[][2]string `json:"data"`
	BinaryData [][2]string  `json:"binaryData"`
}

func b64(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// encodeConfigMap and encodeHash as in kubectl's hash.go.
func hash(in input) string {
	var data map[string]string
	if in.Data != nil {
		data = map[string]string{}
		for _, kv := range *in.Data {
			data[b64(kv[0])] = b64(kv[1])
		}
	}
	m := map[string]interface{}{"kind": "ConfigMap", "name": b64(in.Name), "data": data}
	if len(in.BinaryData) > 0 {
		bin := map[string][]byte{}
		for _, kv := range in.BinaryData {
			bin[b64(kv[0])] = []byte(b64(kv[1]))
		}
		m["binaryData"] = bin
	}
	j, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	hex := fmt.Sprintf("%x", sha256.Sum256(j))
	enc := []rune(hex[:10])
	for i := range enc {
		switch enc[i] {
		case '0':
			enc[i] = 'g'
		case '1':
			enc[i] = 'h'
		case '3':
			enc[i] = 'k'
		case 'a':
			enc[i] = 'm'
		case 'e':
			enc[i] = 't'
		}
	}
	return string(enc)
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var in input
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			panic(err)
		}
		fmt.Println(hash(in))
	}
}
