package main

// The Machine controller: For(Machine), Owns(Switch), Watches(Switch → Machines by labels), with three cache field
// indexes so that no reconcile or mapping scans a namespace: Switches by controller uid, Switches by label pair, and
// Machines by selector pair. Behaviour mirrors controllers/machine/controller.ts line for line.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

const (
	group   = "useless.container.training"
	version = "v1alpha1"
	// flipDelay: how long a switch stays up after being seen, and the minimum gap between flips.
	flipDelay = 5 * time.Second

	indexSwitchController = "switch.controllerUID" // Switch → uid of its controller
	indexSwitchLabel      = "switch.labelPair"     // Switch → "k=v" per label
	indexMachineSelector  = "machine.selectorPair" // Machine → "k=v" per selector entry
)

var (
	machineGVK = schema.GroupVersionKind{Group: group, Version: version, Kind: "Machine"}
	switchGVK  = schema.GroupVersionKind{Group: group, Version: version, Kind: "Switch"}
)

type expectations struct{ creates, deletes map[string]struct{} }

// MachineReconciler keeps Machines' Switches; its memory is per instance, like kubeop's MachineMemory.
type MachineReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder recorder.EventRecorder

	mu       sync.Mutex
	expect   map[types.UID]*expectations
	lastFlip map[types.UID]time.Time
	uidOf    map[types.NamespacedName]types.UID
}

func (r *MachineReconciler) event(m *unstructured.Unstructured, reason, action, note string) {
	r.Recorder.Eventf(m, nil, "Normal", reason, action, "%s", note)
}

func (r *MachineReconciler) expectationsOf(uid types.UID) *expectations {
	e := r.expect[uid]
	if e == nil {
		e = &expectations{creates: map[string]struct{}{}, deletes: map[string]struct{}{}}
		r.expect[uid] = e
	}
	return e
}

func (r *MachineReconciler) forget(key types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if uid, ok := r.uidOf[key]; ok {
		delete(r.expect, uid)
		delete(r.lastFlip, uid)
		delete(r.uidOf, key)
	}
}

// Reconcile converges one Machine.
func (r *MachineReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	machine := newObject(machineGVK)
	if err := r.Get(ctx, req.NamespacedName, machine); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName) // Switches go with it through garbage collection
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if machine.GetDeletionTimestamp() != nil {
		r.forget(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	uid := machine.GetUID()
	ns := machine.GetNamespace()
	r.mu.Lock()
	r.uidOf[req.NamespacedName] = uid
	r.mu.Unlock()
	now := time.Now()
	orig := machine.DeepCopy()
	status, _, _ := unstructured.NestedMap(machine.Object, "status")
	if status == nil {
		status = map[string]interface{}{}
	}
	var waits []time.Duration

	// Stage 1: the machine's own switch.
	switchPosition, _, _ := unstructured.NestedString(machine.Object, "spec", "switchPosition")
	seenAtStr, _ := status["seenAt"].(string)
	seenAt, seen := parseTime(seenAtStr)
	if switchPosition != "" && switchPosition != "down" {
		switch {
		case !seen:
			status["seenAt"] = iso(now)
			r.event(machine, "Seen", "Observe", "switch is up")
			waits = append(waits, flipDelay)
		case !now.Before(seenAt.Add(flipDelay)):
			down := orig.DeepCopy()
			_ = unstructured.SetNestedField(down.Object, "down", "spec", "switchPosition")
			if err := r.Patch(ctx, down, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
				return ctrl.Result{}, err
			}
			delete(status, "seenAt")
			r.event(machine, "SwitchedDown", "Flip", "switch moved down")
		default:
			waits = append(waits, seenAt.Add(flipDelay).Sub(now))
		}
	} else if seenAtStr != "" {
		delete(status, "seenAt")
	}

	// Stage 2: the machine's Switches, found through the cache's indexes.
	selector := selectorOf(machine)
	r.mu.Lock()
	expect := r.expectationsOf(uid)
	pendingCreates := keys(expect.creates)
	pendingDeletes := keys(expect.deletes)
	r.mu.Unlock()
	for _, name := range pendingCreates {
		if r.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, newObject(switchGVK)) == nil {
			r.mu.Lock()
			delete(expect.creates, name)
			r.mu.Unlock()
		}
	}
	for _, name := range pendingDeletes {
		if err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, newObject(switchGVK)); apierrors.IsNotFound(err) {
			r.mu.Lock()
			delete(expect.deletes, name)
			r.mu.Unlock()
		}
	}
	r.mu.Lock()
	settled := len(expect.creates) == 0 && len(expect.deletes) == 0
	deleting := map[string]struct{}{}
	for name := range expect.deletes {
		deleting[name] = struct{}{}
	}
	r.mu.Unlock()

	candidates, err := r.relatedSwitches(ctx, ns, uid, selector)
	if err != nil {
		return ctrl.Result{}, err
	}
	var ours []*unstructured.Unstructured
	for _, sw := range candidates {
		if _, gone := deleting[sw.GetName()]; sw.GetDeletionTimestamp() != nil || gone {
			continue
		}
		owner := metav1.GetControllerOf(sw)
		matching := matches(sw.GetLabels(), selector)
		switch {
		case owner != nil && owner.UID == uid:
			if matching {
				ours = append(ours, sw)
			} else if err := r.release(ctx, machine, sw); err != nil {
				return ctrl.Result{}, err
			}
		case matching && owner == nil:
			adopted, err := r.adopt(ctx, machine, sw)
			if err != nil {
				return ctrl.Result{}, err
			}
			ours = append(ours, adopted)
		}
		// A Switch another Machine controls is left alone, even when its labels match ours.
	}

	wanted, hasWanted, _ := unstructured.NestedInt64(machine.Object, "spec", "switches")
	scaling := false
	if hasWanted && settled {
		if int64(len(ours)) < wanted {
			scaling = true
			var names []string
			for i := int64(len(ours)); i < wanted; i++ {
				sw := newObject(switchGVK)
				sw.SetGenerateName("switch-")
				sw.SetNamespace(ns)
				sw.SetLabels(copyMap(selector))
				_ = unstructured.SetNestedField(sw.Object, "down", "spec", "position")
				if err := controllerutil.SetControllerReference(machine, sw, r.Scheme); err != nil {
					return ctrl.Result{}, err
				}
				if err := r.Create(ctx, sw); err != nil {
					return ctrl.Result{}, err
				}
				r.mu.Lock()
				expect.creates[sw.GetName()] = struct{}{}
				r.mu.Unlock()
				names = append(names, sw.GetName())
			}
			r.event(machine, "SwitchesCreated", "Create", "created switch(es) "+strings.Join(names, ", "))
		} else if int64(len(ours)) > wanted {
			scaling = true
			sorted := append([]*unstructured.Unstructured(nil), ours...)
			sort.Slice(sorted, func(i, j int) bool { return newestFirst(sorted[i], sorted[j]) })
			extras := sorted[:int64(len(ours))-wanted]
			gone := map[string]struct{}{}
			for _, sw := range extras {
				swUID := sw.GetUID()
				if err := r.Delete(ctx, sw, client.Preconditions{UID: &swUID}); err != nil && !apierrors.IsNotFound(err) {
					return ctrl.Result{}, err
				}
				r.mu.Lock()
				expect.deletes[sw.GetName()] = struct{}{}
				r.mu.Unlock()
				gone[sw.GetName()] = struct{}{}
				r.event(machine, "SwitchDeleted", "Delete", "deleted switch "+sw.GetName())
			}
			kept := ours[:0]
			for _, sw := range ours {
				if _, g := gone[sw.GetName()]; !g {
					kept = append(kept, sw)
				}
			}
			ours = kept
		}
	}

	// Flip: note when each up switch was first seen; flip the longest-seen one when both clocks allow.
	var up []*unstructured.Unstructured
	for _, sw := range ours {
		if position(sw) == "up" {
			up = append(up, sw)
		} else if switchSeenAt(sw) != "" {
			if err := r.patchSwitchSeenAt(ctx, sw, nil); err != nil {
				return ctrl.Result{}, err
			}
		}
	}
	seenOf := map[string]time.Time{}
	for _, sw := range up {
		if t, ok := parseTime(switchSeenAt(sw)); ok {
			seenOf[sw.GetName()] = t
		} else {
			stamp := iso(now)
			if err := r.patchSwitchSeenAt(ctx, sw, &stamp); err != nil {
				return ctrl.Result{}, err
			}
			seenOf[sw.GetName()] = now
		}
	}
	r.mu.Lock()
	lastFlip := r.lastFlip[uid]
	r.mu.Unlock()
	if t, ok := parseTime(stringOf(status["lastFlipAt"])); ok && t.After(lastFlip) {
		lastFlip = t
	}
	sort.SliceStable(up, func(i, j int) bool {
		a, b := seenOf[up[i].GetName()], seenOf[up[j].GetName()]
		if !a.Equal(b) {
			return a.Before(b)
		}
		return up[i].GetName() < up[j].GetName()
	})
	pendingFlips := 0
	if len(up) > 0 {
		next := up[0]
		flipAt := seenOf[next.GetName()].Add(flipDelay)
		if byGap := lastFlip.Add(flipDelay); byGap.After(flipAt) {
			flipAt = byGap
		}
		if !now.Before(flipAt) {
			down := next.DeepCopy()
			_ = unstructured.SetNestedField(down.Object, "down", "spec", "position")
			if err := r.Patch(ctx, down, client.MergeFromWithOptions(next, client.MergeFromWithOptimisticLock{})); err != nil {
				return ctrl.Result{}, err
			}
			r.mu.Lock()
			r.lastFlip[uid] = now
			r.mu.Unlock()
			status["lastFlipAt"] = iso(now)
			r.event(machine, "SwitchFlipped", "Flip", "moved switch "+next.GetName()+" down")
			pendingFlips = len(up) - 1
			if pendingFlips > 0 {
				waits = append(waits, flipDelay)
			}
		} else {
			pendingFlips = len(up)
			waits = append(waits, flipAt.Sub(now))
		}
	}

	// Status: positions only once the cache shows every switch we created or deleted.
	if settled && !scaling {
		status["positions"] = positionsOf(ours)
	}
	_, stillSeen := status["seenAt"]
	converged := settled && !scaling && (!hasWanted || int64(len(ours)) == wanted) && pendingFlips == 0 &&
		!(switchPosition != "" && switchPosition != "down" && stillSeen)
	message := fmt.Sprintf("%d switch(es), all down", len(ours))
	if !converged {
		want := int64(len(ours))
		if hasWanted {
			want = wanted
		}
		message = fmt.Sprintf("%d/%d switch(es), %d waiting to flip", len(ours), want, pendingFlips)
	}
	if err := setConditions(status, machine.GetGeneration(), converged, message); err != nil {
		return ctrl.Result{}, err
	}
	status["observedGeneration"] = machine.GetGeneration()
	if !scaling {
		if err := unstructured.SetNestedField(machine.Object, status, "status"); err != nil {
			return ctrl.Result{}, err
		}
		// Patch status only if it changed (semantic comparison, not bytes).
		if !equality.Semantic.DeepEqual(orig.Object["status"], machine.Object["status"]) {
			if err := r.Status().Patch(ctx, machine, client.MergeFrom(orig)); err != nil && !apierrors.IsNotFound(err) {
				return ctrl.Result{}, err
			}
		}
	}
	if len(waits) > 0 {
		min := waits[0]
		for _, w := range waits[1:] {
			if w < min {
				min = w
			}
		}
		if min < time.Millisecond {
			min = time.Millisecond
		}
		return ctrl.Result{RequeueAfter: min}, nil
	}
	return ctrl.Result{}, nil
}

// relatedSwitches: Switches this Machine controls (index by controller uid) and those matching its selector (index
// by one label pair, then filtered), each once, in name order.
func (r *MachineReconciler) relatedSwitches(
	ctx context.Context, ns string, uid types.UID, selector map[string]string,
) ([]*unstructured.Unstructured, error) {
	owned := newList(switchGVK)
	if err := r.List(ctx, owned, client.InNamespace(ns), client.MatchingFields{indexSwitchController: string(uid)}); err != nil {
		return nil, err
	}
	labelled := newList(switchGVK)
	if err := r.List(ctx, labelled, client.InNamespace(ns), client.MatchingFields{indexSwitchLabel: pairs(selector)[0]}); err != nil {
		return nil, err
	}
	byName := map[string]*unstructured.Unstructured{}
	for i := range owned.Items {
		byName[owned.Items[i].GetName()] = &owned.Items[i]
	}
	for i := range labelled.Items {
		if matches(labelled.Items[i].GetLabels(), selector) {
			if _, dup := byName[labelled.Items[i].GetName()]; !dup {
				byName[labelled.Items[i].GetName()] = &labelled.Items[i]
			}
		}
	}
	out := make([]*unstructured.Unstructured, 0, len(byName))
	for _, sw := range byName {
		out = append(out, sw)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, nil
}

func (r *MachineReconciler) adopt(ctx context.Context, machine, sw *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	owned := sw.DeepCopy()
	if err := controllerutil.SetControllerReference(machine, owned, r.Scheme); err != nil {
		return nil, err
	}
	if err := r.Patch(ctx, owned, client.MergeFromWithOptions(sw, client.MergeFromWithOptimisticLock{})); err != nil {
		return nil, err
	}
	r.event(machine, "SwitchAdopted", "Adopt", "adopted switch "+sw.GetName())
	return owned, nil
}

func (r *MachineReconciler) release(ctx context.Context, machine, sw *unstructured.Unstructured) error {
	released := sw.DeepCopy()
	var refs []metav1.OwnerReference
	for _, ref := range sw.GetOwnerReferences() {
		if ref.UID != machine.GetUID() {
			refs = append(refs, ref)
		}
	}
	released.SetOwnerReferences(refs)
	if err := r.Patch(ctx, released, client.MergeFromWithOptions(sw, client.MergeFromWithOptimisticLock{})); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	r.event(machine, "SwitchReleased", "Release", "switch "+sw.GetName()+" no longer matches the selector")
	return nil
}

func (r *MachineReconciler) patchSwitchSeenAt(ctx context.Context, sw *unstructured.Unstructured, seenAt *string) error {
	next := sw.DeepCopy()
	if seenAt == nil {
		unstructured.RemoveNestedField(next.Object, "status", "seenAt")
	} else {
		_ = unstructured.SetNestedField(next.Object, *seenAt, "status", "seenAt")
	}
	if err := r.Status().Patch(ctx, next, client.MergeFrom(sw)); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// machinesOfSwitch maps a Switch to its controller Machine and every Machine whose selector matches its labels
// (found through the selector-pair index), else to labels.machine.
func (r *MachineReconciler) machinesOfSwitch(ctx context.Context, obj client.Object) []reconcile.Request {
	seen := map[types.NamespacedName]struct{}{}
	ns := obj.GetNamespace()
	if owner := metav1.GetControllerOf(obj); owner != nil && owner.Kind == "Machine" {
		seen[types.NamespacedName{Namespace: ns, Name: owner.Name}] = struct{}{}
	}
	labels := obj.GetLabels()
	for _, pair := range pairs(labels) {
		machines := newList(machineGVK)
		if err := r.List(ctx, machines, client.InNamespace(ns), client.MatchingFields{indexMachineSelector: pair}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "listing machines by selector", "pair", pair)
			continue
		}
		for i := range machines.Items {
			if matches(labels, selectorOf(&machines.Items[i])) {
				seen[types.NamespacedName{Namespace: ns, Name: machines.Items[i].GetName()}] = struct{}{}
			}
		}
	}
	if len(seen) == 0 && labels["machine"] != "" {
		seen[types.NamespacedName{Namespace: ns, Name: labels["machine"]}] = struct{}{}
	}
	out := make([]reconcile.Request, 0, len(seen))
	for key := range seen {
		out = append(out, reconcile.Request{NamespacedName: key})
	}
	return out
}

func setupMachineController(mgr ctrl.Manager, maxConcurrent int) error {
	ctx := context.Background()
	indexer := mgr.GetFieldIndexer()
	if err := indexer.IndexField(ctx, newObject(switchGVK), indexSwitchController, func(o client.Object) []string {
		if ref := metav1.GetControllerOf(o); ref != nil {
			return []string{string(ref.UID)}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := indexer.IndexField(ctx, newObject(switchGVK), indexSwitchLabel, func(o client.Object) []string {
		return pairs(o.GetLabels())
	}); err != nil {
		return err
	}
	if err := indexer.IndexField(ctx, newObject(machineGVK), indexMachineSelector, func(o client.Object) []string {
		return pairs(selectorOf(o.(*unstructured.Unstructured)))
	}); err != nil {
		return err
	}
	r := &MachineReconciler{
		Client:   mgr.GetClient(),
		Scheme:   mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("machine-go"),
		expect:   map[types.UID]*expectations{},
		lastFlip: map[types.UID]time.Time{},
		uidOf:    map[types.NamespacedName]types.UID{},
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("machine").
		For(newObject(machineGVK)).
		Owns(newObject(switchGVK)).
		Watches(newObject(switchGVK), handler.EnqueueRequestsFromMapFunc(r.machinesOfSwitch)).
		WithOptions(controller.Options{MaxConcurrentReconciles: maxConcurrent}).
		Complete(r)
}
