// Command rawwrite is the raw-write-limit of the converge-machines benchmark: for every Machine in a namespace it
// makes the writes an operator makes to converge it (3 Switch creates with a controller ownerReference, one Machine
// status merge patch, one events.k8s.io/v1 Event) in a tight loop with client-go, at the given concurrency and
// without client-side throttling. No controller can converge faster than this on the same apiserver.
// It prints one JSON line: {"machines":N,"writes":W,"ms":T}.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file")
	namespace := flag.String("namespace", "default", "namespace of the Machines")
	concurrency := flag.Int("concurrency", 1, "parallel workers (the operators' --max-concurrent-reconciles)")
	switches := flag.Int("switches", 3, "Switches per Machine")
	userAgent := flag.String("user-agent", "rawwrite", "User-Agent")
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rawwrite: kubeconfig %q: %v\n", *kubeconfig, err)
		os.Exit(2)
	}
	cfg.QPS = -1
	cfg.UserAgent = *userAgent
	dyn := dynamic.NewForConfigOrDie(cfg)
	core := kubernetes.NewForConfigOrDie(cfg)
	machinesR := dyn.Resource(schema.GroupVersionResource{Group: "useless.container.training", Version: "v1alpha1", Resource: "machines"}).Namespace(*namespace)
	switchesR := dyn.Resource(schema.GroupVersionResource{Group: "useless.container.training", Version: "v1alpha1", Resource: "switches"}).Namespace(*namespace)
	ctx := context.Background()
	list, err := machinesR.List(ctx, metav1.ListOptions{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "rawwrite: listing machines in %s: %v\n", *namespace, err)
		os.Exit(1)
	}
	start := time.Now()
	var writes atomic.Int64
	work := make(chan *unstructured.Unstructured)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for w := 0; w < *concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range work {
				if err := converge(ctx, m, *switches, switchesR, machinesR, core, &writes); err != nil {
					fmt.Fprintf(os.Stderr, "rawwrite: machine %s: %v\n", m.GetName(), err)
					failed.Add(1)
				}
			}
		}()
	}
	for i := range list.Items {
		work <- &list.Items[i]
	}
	close(work)
	wg.Wait()
	out, _ := json.Marshal(map[string]any{"machines": len(list.Items), "writes": writes.Load(), "ms": float64(time.Since(start).Microseconds()) / 1000, "failed": failed.Load()})
	fmt.Println(string(out))
	if failed.Load() > 0 {
		os.Exit(1)
	}
}

func converge(ctx context.Context, m *unstructured.Unstructured, n int, switchesR, machinesR dynamic.ResourceInterface, core kubernetes.Interface, writes *atomic.Int64) error {
	t := true
	ref := map[string]any{"apiVersion": m.GetAPIVersion(), "kind": m.GetKind(), "name": m.GetName(), "uid": string(m.GetUID()), "controller": t, "blockOwnerDeletion": t}
	positions := ""
	for i := 0; i < n; i++ {
		sw := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "useless.container.training/v1alpha1",
			"kind":       "Switch",
			"metadata": map[string]any{
				"generateName": "switch-", "namespace": m.GetNamespace(),
				"labels": map[string]any{"machine": m.GetName()}, "ownerReferences": []any{ref},
			},
			"spec": map[string]any{"position": "down"},
		}}
		if _, err := switchesR.Create(ctx, sw, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating switch: %w", err)
		}
		writes.Add(1)
		positions += "d"
	}
	now := metav1.Now().UTC().Format(time.RFC3339)
	msg := fmt.Sprintf("%d switch(es), all down", n)
	status := map[string]any{"status": map[string]any{
		"positions":          positions,
		"observedGeneration": m.GetGeneration(),
		"conditions": []any{
			map[string]any{"type": "Ready", "status": "True", "reason": "AllSwitchesDown", "message": msg, "observedGeneration": m.GetGeneration(), "lastTransitionTime": now},
			map[string]any{"type": "Progressing", "status": "False", "reason": "Idle", "message": msg, "observedGeneration": m.GetGeneration(), "lastTransitionTime": now},
		},
	}}
	body, _ := json.Marshal(status)
	if _, err := machinesR.Patch(ctx, m.GetName(), types.MergePatchType, body, metav1.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("patching status: %w", err)
	}
	writes.Add(1)
	ev := &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", m.GetName(), time.Now().UnixNano()), Namespace: m.GetNamespace()},
		EventTime:           metav1.NowMicro(),
		ReportingController: "rawwrite",
		ReportingInstance:   "rawwrite-0",
		Action:              "Create",
		Reason:              "SwitchesCreated",
		Type:                "Normal",
		Note:                "created switches",
		Regarding:           corev1.ObjectReference{APIVersion: m.GetAPIVersion(), Kind: m.GetKind(), Name: m.GetName(), Namespace: m.GetNamespace(), UID: m.GetUID()},
	}
	if _, err := core.EventsV1().Events(m.GetNamespace()).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating event: %w", err)
	}
	writes.Add(1)
	return nil
}
