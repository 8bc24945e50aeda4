package handlers

import (
	"context"
	"errors"

	"github.com/calendard/calendard"
)

// ReadBack runs read, the answer of a write that has committed: the record as stored. It gets a
// database deadline of its own, since the write's may have passed at the commit. Should the
// database fail even so, the answer still tells that the write is stored — 503 service_unavailable
// with data.id and data.committed — so that a client does not send it again and make a duplicate
// (WordPress would answer its database error here, with the post already inserted).
func (r *Request) ReadBack(noun string, id int64, read func() (*Response, error)) (*Response, error) {
	ctx, cancel := r.dbContext(context.WithoutCancel(r.ctx))
	defer cancel()
	saved := r.ctx
	r.ctx = ctx
	defer func() { r.ctx = saved }()
	resp, err := read()
	var e *calendard.Error
	if err != nil && !errors.As(err, &e) {
		r.log.Warn("reading back a committed write", "type", noun, "id", id, "err", err)
		return nil, &calendard.Error{Code: "service_unavailable", Status: 503,
			Message: "The " + noun + " was saved, but the database did not answer when it was read back.",
			Data:    []calendard.KV{{Key: "id", Value: id}, {Key: "committed", Value: true}}}
	}
	return resp, err
}

// Unconfirmed is the answer to a write whose COMMIT went out but was not answered in time: the
// database may have stored it or not, and nobody can tell until it answers again. It is 503
// service_unavailable with data.committed null (unknown; true is for a write known to be stored)
// and data.id, the record it would have saved, so that a client looks for that record before it
// sends the write again. Any other error is returned as it is.
func (r *Request) Unconfirmed(noun string, id int64, err error) error {
	if !errors.Is(err, calendard.ErrCommitUnconfirmed) {
		return err
	}
	r.log.Warn("commit not confirmed", "type", noun, "id", id, "err", err)
	return errUnconfirmed(noun, id)
}

func errUnconfirmed(noun string, id int64) *calendard.Error {
	data := []calendard.KV{{Key: "committed", Value: nil}}
	msg := "The database did not confirm in time that the " + noun + " was saved: it may have been."
	if id > 0 {
		data = append([]calendard.KV{{Key: "id", Value: id}}, data...)
		msg += " Look for it (data.id) before sending the request again."
	}
	return &calendard.Error{Code: "service_unavailable", Status: 503, Message: msg, Data: data}
}
