// Command go_type_names prints, as JSON, the Go type names encoding/json writes in an UnmarshalTypeError for the
// fields of every struct reachable from the built-in kinds kube-apiserver v1.37 serves (client-go's scheme,
// apiextensions.k8s.io/v1 and apiregistration.k8s.io/v1): OpenAPI, which ../capture_go_types.ts reads, loses them.
//
// Output: {"<OpenAPI definition name>": {"<json field>": ["<level 0>", "<level 1>", ...]}}, where level 0 is the
// field's Go type, level i+1 the element (slice) or value (map) type of level i, each with pointers removed (the
// decoder reports the pointed-to type), and the levels end at a struct or a scalar. A field is listed only when one of
// its levels is a named non-struct type (`v1.SecretType`, `v1.ResourceList`, `[]v1.Capability` → `v1.Capability`) or
// a struct whose Go name is not the last two parts of its definition name.
//
//	cd testing/apiserver/testdata/go_type_names && GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off go run .
package main

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

func main() {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		scheme.AddToScheme, apiextensionsv1.AddToScheme, apiregistrationv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	out := map[string]map[string][]string{}
	seen := map[reflect.Type]bool{}
	for _, t := range s.AllKnownTypes() {
		walk(t, out, seen)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}

// definitionName is the OpenAPI definition name of a named Go type: k8s.io/api/core/v1.Secret → io.k8s.api.core.v1.Secret.
func definitionName(t reflect.Type) string {
	parts := strings.Split(t.PkgPath(), "/")
	host := strings.Split(parts[0], ".")
	for i, j := 0, len(host)-1; i < j; i, j = i+1, j-1 {
		host[i], host[j] = host[j], host[i]
	}
	return strings.Join(append(append(host, parts[1:]...), t.Name()), ".")
}

// walk records the fields of struct t (its inline embedded structs' fields included) and walks the structs they reach.
func walk(t reflect.Type, out map[string]map[string][]string, seen map[reflect.Type]bool) {
	if t.Kind() != reflect.Struct || seen[t] || t.PkgPath() == "" {
		return
	}
	seen[t] = true
	fields := map[string][]string{}
	collect(t, fields, out, seen)
	if len(fields) > 0 {
		out[definitionName(t)] = fields
	}
}

func collect(t reflect.Type, fields map[string][]string, out map[string]map[string][]string, seen map[reflect.Type]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name := strings.Split(tag, ",")[0]
		if tag == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collect(ft, fields, out, seen)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		var levels []string
		named := false
		for ft := f.Type; ; {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			levels = append(levels, ft.String())
			if ft.Kind() == reflect.Struct {
				walk(ft, out, seen)
				named = named || ft.PkgPath() != "" && !strings.HasSuffix(definitionName(ft), "."+ft.String())
				break
			}
			named = named || ft.PkgPath() != ""
			if ft.Kind() != reflect.Slice && ft.Kind() != reflect.Map && ft.Kind() != reflect.Array {
				break
			}
			ft = ft.Elem()
		}
		if named {
			fields[name] = levels
		}
	}
}
