package main

// Reading and building the unstructured Machine and Switch objects: selectors, positions, times, conditions.

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func newObject(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}

func newList(gvk schema.GroupVersionKind) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	return l
}

// selectorOf: the labels that tie Switches to a Machine (default machine=<name>).
func selectorOf(m *unstructured.Unstructured) map[string]string {
	sel, found, _ := unstructured.NestedStringMap(m.Object, "spec", "selector")
	if found && len(sel) > 0 {
		return sel
	}
	return map[string]string{"machine": m.GetName()}
}

func matches(labels, selector map[string]string) bool {
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func pairs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func position(sw *unstructured.Unstructured) string {
	p, _, _ := unstructured.NestedString(sw.Object, "spec", "position")
	if p == "" {
		return "down"
	}
	return p
}

func switchSeenAt(sw *unstructured.Unstructured) string {
	s, _, _ := unstructured.NestedString(sw.Object, "status", "seenAt")
	return s
}

func positionsOf(switches []*unstructured.Unstructured) string {
	sorted := append([]*unstructured.Unstructured(nil), switches...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].GetName() < sorted[j].GetName() })
	var b strings.Builder
	for _, sw := range sorted {
		b.WriteByte(position(sw)[0])
	}
	return b.String()
}

// iso formats like JavaScript's Date.toISOString (milliseconds, Z).
func iso(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func parseTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// setConditions sets Ready and Progressing the way apimachinery's meta.SetStatusCondition does (transition time
// kept while the status stays the same).
func setConditions(status map[string]interface{}, generation int64, converged bool, message string) error {
	var conditions []metav1.Condition
	if raw, ok := status["conditions"].([]interface{}); ok {
		for _, item := range raw {
			m, ok := item.(map[string]interface{})
			if !ok {
				continue
			}
			var c metav1.Condition
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c); err != nil {
				return fmt.Errorf("status.conditions: %w", err)
			}
			conditions = append(conditions, c)
		}
	}
	ready, progressing := metav1.ConditionFalse, metav1.ConditionTrue
	readyReason, progressingReason := "Converging", "Converging"
	if converged {
		ready, progressing = metav1.ConditionTrue, metav1.ConditionFalse
		readyReason, progressingReason = "AllSwitchesDown", "Idle"
	}
	meta.SetStatusCondition(&conditions, metav1.Condition{
		Type: "Ready", Status: ready, Reason: readyReason, Message: message, ObservedGeneration: generation,
	})
	meta.SetStatusCondition(&conditions, metav1.Condition{
		Type: "Progressing", Status: progressing, Reason: progressingReason, Message: message, ObservedGeneration: generation,
	})
	out := make([]interface{}, 0, len(conditions))
	for i := range conditions {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&conditions[i])
		if err != nil {
			return err
		}
		out = append(out, m)
	}
	status["conditions"] = out
	return nil
}

func newestFirst(a, b *unstructured.Unstructured) bool {
	ta, tb := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	if !ta.Equal(&tb) {
		return tb.Before(&ta)
	}
	return a.GetName() > b.GetName()
}

func keys(m map[string]struct{}) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func stringOf(v interface{}) string {
	s, _ := v.(string)
	return s
}
