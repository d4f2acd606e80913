package locks

import (
	"fmt"
	"reflect"
	"strconv"

	"tinystore.dev/go/internal/native"
)

// keyText is a key's text: a string as it is, an integer as its decimal (so
// 42 and "42" are the same key), []byte as text, a fmt.Stringer by String.
func keyText(key any) (string, error) {
	switch k := key.(type) {
	case string:
		return k, nil
	case []byte:
		return string(k), nil
	case int:
		return strconv.FormatInt(int64(k), 10), nil
	case int64:
		return strconv.FormatInt(k, 10), nil
	case int32:
		return strconv.FormatInt(int64(k), 10), nil
	case uint64:
		return strconv.FormatUint(k, 10), nil
	case fmt.Stringer:
		return k.String(), nil
	}
	v := reflect.ValueOf(key)
	switch v.Kind() {
	case reflect.String:
		return v.String(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10), nil
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return string(v.Bytes()), nil
		}
	}
	return "", native.Invalid(fmt.Sprintf(
		"key %v of type %T: a key is a string, an integer, []byte or a fmt.Stringer", key, key))
}
